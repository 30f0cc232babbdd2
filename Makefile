# gimp-gpufx: one Makefile.  `make` builds into build/; `make check` installs what the
# tests need and runs them all (then again under ASan/UBSan); `make demo` installs the
# plug-ins into your GIMP profile and writes before/after pictures into demo/.

BUILD    ?= build
CC       ?= cc
PKG      ?= pkg-config
CUDA_HOME ?= /usr/local/cuda
# nvcc from PATH or CUDA_HOME; empty (CPU-only build) when neither has it.
NVCC     ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard $(CUDA_HOME)/bin/nvcc))
SAN      ?=

WARN     := -Wall -Wextra -Werror -Wno-format-truncation  # messages are cut on purpose
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -pthread -ffp-contract=off $(WARN) -MMD -MP
LDLIBS   := -llapacke -lgsl -lgslcblas -lm -pthread

ifeq ($(SAN),1)
  BUILD   := build/asan
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  NVCC    :=
endif

# Recursively expanded: only evaluated by targets that use GIMP/GEGL, so the core and
# its tests build on machines (the GPU host) that have neither.
GIMP_CFLAGS  = $(shell $(PKG) --cflags gimp-2.0 gimpui-2.0 gegl-0.4)
GIMP_LIBS    = $(shell $(PKG) --libs gimp-2.0 gimpui-2.0 gegl-0.4)
GEGL_CFLAGS  = $(shell $(PKG) --cflags gegl-0.4 libpng zlib)
GEGL_LIBS    = $(shell $(PKG) --libs gegl-0.4 libpng zlib)

CORE_SRC := $(wildcard common/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
ifneq ($(NVCC),)
  CUDA_SRC   := $(wildcard cuda/*.cu)
  CUDA_OBJ   := $(CUDA_SRC:%.cu=$(BUILD)/obj/%.o)
  CFLAGS     += -DGFX_HAVE_CUDA
  CUDA_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
  NVCCFLAGS  ?= -O3 -lineinfo
  NVCCFLAGS  += -std=c++17 $(CUDA_ARCH) -fmad=false -DGFX_HAVE_CUDA -Werror all-warnings \
                -Xcompiler -fPIC,-Wall,-Wextra,-ffp-contract=off -MMD -MP
  CUDA_LIBS  := -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -ldl -lrt
endif
CORE_LIB := $(BUILD)/libgfxcore.a

UI_SRC     := $(wildcard ui/*.c)
UI_OBJ     := $(UI_SRC:%.c=$(BUILD)/obj/%.o)
# plugins/*_glue.c: GIMP code of a procedure that lives in another plug-in's executable
# (plug-in-gpufx-iir-identify inside gpufx-iir-deblur, SPEC section 4), linked there.
PLUGIN_GLUE := $(wildcard plugins/*_glue.c)
GLUE_OBJ   := $(PLUGIN_GLUE:%.c=$(BUILD)/obj/%.o)
PLUGINS    := $(patsubst plugins/%.c,$(BUILD)/gpufx-%,$(filter-out $(PLUGIN_GLUE),$(wildcard plugins/*.c)))
CLI_SRC    := $(wildcard cli/*.c)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
CLI        := $(if $(CLI_SRC),$(BUILD)/gpufx)
TEST_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
TEST_SUPPORT := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/unit/support_*.c))
MO_FILES   := $(patsubst po/%.po,$(BUILD)/locale/%/LC_MESSAGES/gimp-gpufx.mo,$(wildcard po/*.po))
HELP_LANGS := en $(patsubst po/%.po,%,$(wildcard po/*.po))
HELP       := $(PLUGINS:$(BUILD)/gpufx-%=$(BUILD)/help/gpufx-%.stamp)

.PHONY: all core tests-core plugins cli locale help deps check demo bench install \
        uninstall pot clean
all: core plugins cli tests-core locale help
core: $(CORE_LIB)
tests-core: $(TEST_BINS)
plugins: $(PLUGINS)
cli: $(CLI)
locale: $(MO_FILES)
help: $(HELP)

$(CORE_LIB): $(CORE_OBJ) $(CUDA_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# GIMP- and GEGL-using objects get the package flags (GLib headers are not C11-clean).
$(UI_OBJ) $(GLUE_OBJ) $(PLUGINS:$(BUILD)/gpufx-%=$(BUILD)/obj/plugins/%.o): CFLAGS += $(GIMP_CFLAGS) -std=gnu11
$(CLI_OBJ): CFLAGS += $(GEGL_CFLAGS) -std=gnu11
# Where GEGL keeps its modules (cli/gegl_modules.c links the ones gpufx loads).
$(BUILD)/obj/cli/gegl_modules.o: CFLAGS += -DGFX_GEGL_MODULE_DIR='"$(shell $(PKG) --variable=pluginsdir gegl-0.4)"'

$(BUILD)/gpufx-%: $(BUILD)/obj/plugins/%.o $(UI_OBJ) $(CORE_LIB)
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(CORE_LIB) -o $@ $(GIMP_LIBS) $(CUDA_LIBS) $(LDLIBS)

$(BUILD)/gpufx-iir-deblur: $(GLUE_OBJ)

# gpufx --version: git describe, rewritten only when it changes (so only when it changes
# does cmd_version.o rebuild); "unknown" outside a git checkout.
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@v='#define GFX_VERSION "$(shell git describe --always --dirty 2>/dev/null || echo unknown)"'; \
	  [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
$(BUILD)/obj/cli/cmd_version.o: $(BUILD)/gen/version.h
$(BUILD)/obj/cli/cmd_version.o: CFLAGS += -I$(BUILD)/gen
FORCE:

$(BUILD)/gpufx: $(CLI_OBJ) $(CORE_LIB)
	$(CC) $(LDFLAGS) $^ -o $@ $(GEGL_LIBS) $(CUDA_LIBS) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TEST_SUPPORT) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(CUDA_LIBS) $(LDLIBS)

# The GPU halftone and IIR kernels run on the CPU (host threads as GPU threads): check
# their logic on machines without a GPU.  C++20 for std::barrier.
EMU_TESTS := $(BUILD)/tests/test_halftone_emu $(BUILD)/tests/test_iir_emu
$(BUILD)/tests/test_halftone_emu: cuda/halftone_kernel.cuh cuda/halftone_rows.cuh cuda/halftone_pair.cuh \
  cuda/halftone_setup.cuh cuda/halftone_planes.cuh tests/unit/test_rng.h
$(BUILD)/tests/test_iir_emu: cuda/cuda_iir_split.cuh cuda/cuda_iir_internal.h tests/unit/test_iir_util.h
$(BUILD)/tests/test_%_emu: tests/emu/%_emu.cpp tests/emu/cuda_emu.h $(CORE_LIB)
	@mkdir -p $(@D)
	$(CXX) -std=c++20 -O1 -pthread -DGFXHT_EMULATE -DGFX_IIR_EMULATE -Wall -Wextra -Werror \
	  -Wno-unknown-pragmas -Wno-missing-field-initializers $(filter -fsanitize% -fno-%,$(CFLAGS)) \
	  $< $(CORE_LIB) -o $@ $(LDFLAGS) $(LDLIBS)
tests-core: $(EMU_TESTS)

# Stand-alone benchmark programs (core only, like the unit tests): make build/bench/NAME
$(BUILD)/bench/%: bench/%.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(CORE_LIB) -o $@ $(CUDA_LIBS) $(LDLIBS)

$(BUILD)/locale/%/LC_MESSAGES/gimp-gpufx.mo: po/%.po
	@mkdir -p $(@D)
	msgfmt --check -o $@ $<

# What Help (F1) opens: each plug-in writes its own pages (ui/help_pages.h), once per
# language, from its catalogue in $(BUILD)/locale; scripts/install.sh copies them beside it.
$(BUILD)/help/gpufx-%.stamp: $(BUILD)/gpufx-% $(MO_FILES) $(wildcard docs/before-after-*.png)
	@rm -rf $(BUILD)/help/gpufx-$*
	@for lang in $(HELP_LANGS); do \
	  LANGUAGE=$$lang LC_ALL=C.UTF-8 $< --help-pages $(BUILD)/help/gpufx-$*/$$lang || exit 1; \
	done
	@for pic in $$(sed -n 's|.*<img src="\.\./\([^"]*\)".*|\1|p' $(BUILD)/help/gpufx-$*/en/*.html); do \
	  cp docs/$$pic $(BUILD)/help/gpufx-$*/ || exit 1; \
	done
	@touch $@

# po/POTFILES lists the sources with strings; `make pot` refreshes it, the template and
# merges the template into every catalogue (new strings then show as untranslated).
# po/xgettext-keywords names the marking functions (gfx_fail and gfx_tr are the core's).
pot:
	ls common/*.c ui/*.c plugins/*.c > po/POTFILES
	xgettext $$(cat po/xgettext-keywords) --from-code=UTF-8 \
	  --add-comments=TRANSLATORS --package-name=gimp-gpufx --files-from=po/POTFILES \
	  -o po/gimp-gpufx.pot
	for po in $(wildcard po/*.po); do msgmerge --quiet --update --backup=none $$po po/gimp-gpufx.pot; done

deps:
	@scripts/deps.sh

# All suites, then the unit tests and the GIMP tests again under ASan/UBSan (the ASan CLI
# also serves tests/py/test_reliability.py's bad-input matrix); one summary line at the end.
# Builds and test programs run JOBS at a time (default: the cores).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(MAKE) --no-print-directory -j$(JOBS) SAN=1 core tests-core cli plugins locale help
	@JOBS=$(JOBS) scripts/run-tests.sh $(BUILD) build/asan

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(MAKE) --no-print-directory install
	@scripts/demo.sh $(BUILD) demo

bench: all
	@scripts/bench.sh $(BUILD)

install: all
	@scripts/install.sh $(BUILD)

uninstall:
	@scripts/install.sh --uninstall

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
