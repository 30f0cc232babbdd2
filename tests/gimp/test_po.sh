#!/bin/bash
# The zh_CN, ru and ko catalogues cover every user-visible string of the current sources
# (template rebuilt here from common/ ui/ plugins/, as `make pot` does), with no fuzzy
# entries, and compile with msgfmt --check (format strings match).
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v xgettext >/dev/null || { echo "SKIP po: gettext tools not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1
ls common/*.c ui/*.c plugins/*.c >"$tmp/files"
xgettext $(cat po/xgettext-keywords) --from-code=UTF-8 \
  --package-name=gimp-gpufx --files-from="$tmp/files" -o "$tmp/fresh.pot" 2>"$tmp/err" \
  || { echo "FAIL po-template: $(head -1 "$tmp/err")"; exit 0; }
for lang in zh_CN ru ko; do
  po=po/$lang.po
  [ -f "$po" ] || { echo "FAIL po-$lang: $po missing"; continue; }
  msgfmt --check -o /dev/null "$po" 2>"$tmp/err" && echo "PASS po-$lang-compiles" \
    || echo "FAIL po-$lang-compiles: $(head -1 "$tmp/err")"
  msgmerge --quiet --no-fuzzy-matching -o "$tmp/$lang.po" "$po" "$tmp/fresh.pot"
  missing=$(msgattrib --untranslated --no-wrap "$tmp/$lang.po" | grep -c '^msgid "[^"]')
  fuzzy=$(msgattrib --only-fuzzy --no-wrap "$tmp/$lang.po" | grep -c '^msgid "[^"]')
  if [ "$missing" -eq 0 ] && [ "$fuzzy" -eq 0 ]; then
    echo "PASS po-$lang-complete"
  else
    first=$(msgattrib --untranslated --no-wrap "$tmp/$lang.po" | grep -m1 '^msgid "[^"]')
    echo "FAIL po-$lang-complete: $missing untranslated, $fuzzy fuzzy (run make pot, translate; first: $first)"
  fi
done
# Words the dialogs and help pages show for a parameter's special value (auto_label) come
# from the tables in common/, so there they must be marked for the catalogues.
unmarked=$(grep -n 'auto_label = "' common/*.c)
[ -z "$unmarked" ] && echo "PASS po-auto-labels-marked" \
  || echo "FAIL po-auto-labels-marked: not in N_(): $(head -1 <<<"$unmarked")"
