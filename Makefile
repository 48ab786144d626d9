# SPDX-License-Identifier: GPL-2.0
#
# ktgen: make            module against KDIR + CLI
#        make demo       the main job: copy-path comparison (in a VM here)
#        make check      every test: CLI unit tests, VM suites
#        make checkpatch kernel style over kmod/ and include/
#        make check-compat  W=1 builds and the smoke suite on 5.10, 6.1, 6.12, 7.2

VERSION		:= 0.1.0
GITREV		:= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
KTGEN_VERSION	:= $(VERSION)$(if $(GITREV),+g$(GITREV))
CACHE		?= $(HOME)/.cache/ktgen
export KTGEN_CACHE := $(CACHE)

# The running kernel's build tree when it has one, else the cached stock
# test kernel's headers (fetched on first use).
KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; \
	  if [ -d $$d ]; then echo $$d; else \
	  scripts/install-deps.sh >&2 && . $$(scripts/fetch-kernel.sh) && echo $$KDIR; fi)

KBUILD_OPTS	= -C $(KDIR) M=$(CURDIR) KTGEN_VERSION=$(KTGEN_VERSION) $(if $(W),W=$(W))

.PHONY: all deps module tools clean checkpatch uapi check check-unit print-version \
	check-vm check-debug check-uapi check-compat demo

all: module tools

deps:
	@scripts/install-deps.sh

module: deps
	@scripts/compat-probe.sh $(KDIR) kmod
	$(MAKE) $(KBUILD_OPTS) modules

tools: deps
	$(MAKE) -C tools KTGEN_VERSION=$(KTGEN_VERSION)

uapi: deps
	scripts/ynl-gen.sh include/uapi/linux/ktgen.h

# Sources only: not kbuild's *.mod.c nor the generated compat header.
CHECKPATCH_FILES = $(filter-out %.mod.c kmod/compat-gen.h, \
		   $(wildcard kmod/*.c kmod/*.h kmod/probes/*.c include/uapi/linux/*.h))

checkpatch: deps
	@scripts/checkpatch.sh $(CHECKPATCH_FILES)

# Tiers: host unit tests of the CLI (ASan/UBSan), the uapi header against its
# spec, then the KTAP VM suites on the stock and the debug kernel.
check: deps
	@scripts/check.sh

check-unit: deps
	$(MAKE) -C tools check KTGEN_VERSION=$(KTGEN_VERSION)

check-uapi: deps
	@scripts/check-uapi.sh

check-vm: deps
	@scripts/vm-suite.sh bookworm

check-debug: deps
	@scripts/vm-suite.sh bookworm-debug

check-compat: deps
	@scripts/check-compat.sh

demo: deps
	@scripts/demo.sh

clean:
	-$(MAKE) $(KBUILD_OPTS) clean 2>/dev/null
	$(MAKE) -C tools clean
	rm -f kmod/compat-gen.h

print-version:
	@echo $(KTGEN_VERSION)
