#!/bin/bash
# Layer masks and channels hold coverage, not colour: the filters take the values they
# store, in the encoding GIMP stores them in, in every precision.  That encoding is the
# drawable's own: layer masks are linear in every precision (an 8-bit perceptual image's
# too: "Y u8"), channels are linear except in 8-bit perceptual images ("Y' u8").
# - A layer mask copied from a layer of sRGB gray 188 (0.50 in linear light: the mask makes
#   the layer half opaque) must halftone to half white, not 74% (0.50 encoded
#   perceptually again: 0.737, what the filters did in 8-bit perceptual images).
# - A channel whose every pixel is set to the middle value must halftone to half white.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/mask-values
scm='
(define (fill-raw d bytes)   ; every pixel of d holds the stored bytes given
  (let ((w (car (gimp-drawable-width d))) (h (car (gimp-drawable-height d))) (a (list->vector bytes)))
    (let yl ((y 0)) (when (< y h)
      (let xl ((x 0)) (when (< x w) (gimp-drawable-set-pixel d x y (length bytes) a) (xl (+ x 1))))
      (yl (+ y 1))))))
(define (white-share d)      ; the share of pixels that are not 0
  (let ((w (car (gimp-drawable-width d))) (h (car (gimp-drawable-height d))) (n 0))
    (let yl ((y 0)) (when (< y h)
      (let xl ((x 0)) (when (< x w)
        (if (> (apply + (vector->list (cadr (gimp-drawable-get-pixel d x y)))) 0) (set! n (+ n 1)))
        (xl (+ x 1))))
      (yl (+ y 1))))
    (/ n (* w h 1.0))))
(define (try tag precision half)
  (let* ((img (car (gimp-image-new 64 40 GRAY)))
         (layer (car (gimp-layer-new img 64 40 GRAY-IMAGE "l" 100 LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img layer 0 0)
    (if (not (= precision PRECISION-U8-GAMMA)) (gimp-image-convert-precision img precision))
    (gimp-context-set-foreground (quote (188 188 188)))
    (gimp-drawable-fill layer FILL-FOREGROUND)
    (let ((mask (car (gimp-layer-create-mask layer ADD-MASK-COPY)))
          (channel (car (gimp-channel-new img 64 40 "c" 50 (quote (255 0 0))))))
      (gimp-layer-add-mask layer mask)
      (gimp-image-insert-channel img channel 0 0)
      (fill-raw channel half)
      (for-each (lambda (d kind)
                  (plug-in-gpufx-halftone RUN-NONINTERACTIVE img d 0 2 1 0 -1)
                  (gimp-message (string-append "share " tag "-" kind " "
                                               (number->string (white-share d)))))
                (list mask channel) (list "mask" "channel")))
    (gimp-image-delete img)))
(try "u8-perceptual" PRECISION-U8-GAMMA (quote (128)))
(try "u8-linear" PRECISION-U8-LINEAR (quote (128)))
(try "u16-perceptual" PRECISION-U16-GAMMA (quote (0 128)))
(try "u16-linear" PRECISION-U16-LINEAR (quote (0 128)))
(try "float-perceptual" PRECISION-FLOAT-GAMMA (quote (0 0 0 63)))
(try "float-linear" PRECISION-FLOAT-LINEAR (quote (0 0 0 63)))'
gimp_batch "$work/run.log" "(begin $scm)"
if batch_ok mask-values-batch "$work/run.log" $?; then
  n=0
  while read -r tag share; do
    n=$((n + 1))
    awk -v s="$share" 'BEGIN { exit !(s > 0.48 && s < 0.52) }' \
      && pass "mask-values-$tag-half-white" \
      || fail "mask-values-$tag-half-white" "0.5 everywhere came out $share white"
  done < <(grep -o 'share [a-z0-9-]* [0-9.]*' "$work/run.log" | cut -d' ' -f2-)
  [ "$n" -eq 12 ] || fail mask-values-all-reported "$n of 12 shares in the log"
fi
