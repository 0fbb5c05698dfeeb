# Confab — build, run and test. `make run` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= release
BIN_RELEASE := .build/release/confab
ARGS ?=

APT_PACKAGES := libsodium-dev libsqlite3-dev libqrencode-dev pkg-config
# chromium, chromium-driver and python3-selenium: the web app's tests drive a real browser;
# firefox-esr and python3-websocket: the same app in Firefox, over WebDriver BiDi.
# python3-cryptography: Tests/Vectors check Protocol.md's vectors from the text alone.
TEST_PACKAGES := tmux zbar-tools iproute2 python3 python3-cryptography jq nftables xz-utils man-db dpkg-dev chromium chromium-driver python3-selenium firefox-esr python3-websocket

# Installing (docs/install.md). `make install` copies into $(DESTDIR)$(PREFIX) what
# `make release` staged: the release binary with the Swift runtime linked in, so it runs on a
# machine without Swift; a man page per command; bash, zsh and fish completions; the relay's
# systemd unit (in $(UNITDIR)). It builds first when the stage is out of date, so build as
# yourself and install as root: `make release && sudo make install`. `make uninstall` (same
# PREFIX and DESTDIR) removes exactly what the install listed in
# $(PREFIX)/share/confab/install-manifest. `make deb` packages the same files, PREFIX=/usr.
# The release is built in a directory of its own ($(INSTALL_SCRATCH)): --static-swift-stdlib
# would otherwise rebuild everything in .build each time `make run` went back without it.
PREFIX ?= /usr/local
DESTDIR ?=
UNITDIR ?= $(PREFIX)/share/confab
ZSHDIR ?= $(PREFIX)/share/zsh/site-functions
INSTALL_SCRATCH := .build/install
STAGE := .build/stage
STAGE_SOURCES := Package.swift $(wildcard Package.resolved) $(shell find Sources -type f) Packaging/stage.sh

.PHONY: deps test-deps build run test lint fuzz fuzz-long bench proto web screenshots format clean release install uninstall deb

# Installs only what is missing; needs root (or sudo) the first time.
deps:
	@missing=""; for p in $(APT_PACKAGES) $(EXTRA_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; \
	fi

test-deps:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(TEST_PACKAGES)"

build: deps
	$(SWIFT) build -c $(CONFIG)

run: deps
	$(SWIFT) build -c release --product confab
	$(BIN_RELEASE) $(ARGS)

# Runs `swift test --skip-build $(2)`, keeping its output in .build/test-$(1).log; on failure
# it prints every failed test and its issues again at the end, where a CI log's tail shows them.
define swift_test
	@set -o pipefail; $(SWIFT) test --skip-build $(2) 2>&1 | tee .build/test-$(1).log || { \
	    echo "== $(1) tests failed; their issues (whole log in .build/test-$(1).log):"; \
	    grep -A4 -E '✘ Test .*(recorded an issue|failed)' .build/test-$(1).log; exit 1; }
endef

# In-process tests run in parallel; the suites that start real confab processes and wait
# on them run one at a time after them: their waits would otherwise hold the few threads
# of the concurrency pool that the other tests' timeouts run on.
# The previous release, for the mixed-version test: built from its tag (once; kept under
# .build/releases) at the lowest priority while the suites run, which mostly wait on processes.
OLD_RELEASE ?= v0.1.0

# The install test needs the release build (`make release`, in a build directory of its own so
# it holds no lock the suites wait on): it too is built at the lowest priority while they run,
# after the previous release. With FUZZ_PREBUILD=1 (CI, which runs `make fuzz` next) the
# fuzzers are built after it the same way, and `make test` does not wait for them.
test: test-deps lint
	$(SWIFT) build --product confab
	$(SWIFT) build --build-tests
	@nice -n 19 Tests/LAN/old-release.sh $(OLD_RELEASE) >.build/old-release.out 2>&1 & echo $$! >.build/old-release.pid
	@rm -f .build/release.status; { while kill -0 $$(cat .build/old-release.pid) 2>/dev/null; do sleep 1; done; \
	    nice -n 19 $(MAKE) --no-print-directory release >.build/release.log 2>&1; echo $$? >.build/release.status; } & \
	    echo $$! >.build/release.pid
	@if [ -n "$(FUZZ_PREBUILD)" ]; then { while [ ! -f .build/release.status ]; do sleep 1; done; \
	    FUZZ_BUILD_ONLY=1 nice -n 19 Fuzz/run.sh 1 >.build/fuzz-build.log 2>&1; } & echo $$! >.build/fuzz-build.pid; fi
	python3 Tools/embed-web.py --check
	python3 Tests/Docs/check_links.py --self-test
	python3 Tests/Docs/check_links.py README.md docs/*.md CHANGELOG.md Examples/README.md
	python3 Tests/Vectors/device_create.py
	CONFAB=.build/debug/confab python3 Tests/Docs/run_readme.py --self-test
	CONFAB=.build/debug/confab python3 Tests/Docs/run_readme.py README.md
	$(call swift_test,in-process,--parallel --skip ConfabCLITests --skip ConfabNodeTests)
	$(call swift_test,process,--no-parallel --filter 'ConfabCLITests|ConfabNodeTests')
	CONFAB=.build/debug/confab Tests/LAN/lan-test.sh
	CONFAB=.build/debug/confab Tests/LAN/discovery-test.sh
	CONFAB=.build/debug/confab Tests/LAN/first-run-link-test.sh
	CONFAB=.build/debug/confab Tests/LAN/devices-test.sh
	CONFAB=.build/debug/confab Tests/LAN/doctor-test.sh
	CONFAB=.build/debug/confab Tests/LAN/office-test.sh
	CONFAB=.build/debug/confab Tests/Web/web-test.sh
	@while kill -0 $$(cat .build/old-release.pid) 2>/dev/null; do sleep 1; done
	CONFAB=.build/debug/confab OLD_TAG=$(OLD_RELEASE) Tests/LAN/mixed-version-test.sh
	@while kill -0 $$(cat .build/release.pid) 2>/dev/null; do sleep 1; done
	@[ "$$(cat .build/release.status)" = 0 ] || { tail -30 .build/release.log; echo "make release failed (whole log in .build/release.log)"; exit 1; }
	Tests/Install/install-test.sh

bench: deps
	$(SWIFT) build -c release --product confab
	$(SWIFT) build -c release --product confab-bench
	.build/release/confab-bench
	Bench/lan-group.sh 20 20
	Bench/lan-file.sh
	Bench/lan-discovery.sh
	Bench/web.sh

FUZZ_SECONDS ?= 60
fuzz: deps
	@# A build `make test` started (FUZZ_PREBUILD) is finished first, then reused.
	@if [ -f .build/fuzz-build.pid ]; then while kill -0 $$(cat .build/fuzz-build.pid) 2>/dev/null; do sleep 1; done; \
	    rm -f .build/fuzz-build.pid; fi
	./Fuzz/run.sh $(FUZZ_SECONDS)

# The scheduled run: every fuzzer to 10 million executions (or a day), growing and then
# minimising the corpus kept in Fuzz/Corpus, which is committed.
FUZZ_LONG_RUNS ?= 10000000
fuzz-long: deps
	FUZZ_RUNS=$(FUZZ_LONG_RUNS) FUZZ_KEEP_CORPUS=1 ./Fuzz/run.sh 86400

# Regenerates the committed Swift code from Proto/*.proto. Needs protoc and protoc-gen-swift
# (built from swift-protobuf, version matching Package.swift) on PATH.
proto:
	protoc --proto_path=Proto --swift_out=Sources/ConfabWire/Generated Proto/*.proto

# Embeds the web app's front end (Web/) in the binary: Sources/ConfabWeb/Assets/WebAssetFiles.swift,
# committed; `make test` fails when it is not what Web/ holds.
web:
	python3 Tools/embed-web.py

# The README's picture of the web app, taken by the browser test as it runs.
screenshots: test-deps
	$(SWIFT) build --product confab
	CONFAB=.build/debug/confab Tests/Web/web-test.sh --screenshot docs/images/web-chat.png

format:
	$(SWIFT) format --in-place --recursive Sources Tests Fuzz/Sources Package.swift

# The checked-in .swift-format, enforced: `make test` fails on any line `make format` would
# change, naming the file and the rule.
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Fuzz/Sources Package.swift

release: deps $(STAGE)/bin/confab

$(STAGE)/bin/confab: $(STAGE_SOURCES)
	@command -v $(SWIFT) >/dev/null || { echo "$(SWIFT) is not on this PATH (sudo's?): run make release as yourself, then sudo make install" >&2; exit 1; }
	$(SWIFT) build --scratch-path $(INSTALL_SCRATCH) -c release --static-swift-stdlib --product confab
	SWIFT=$(SWIFT) SCRATCH=$(INSTALL_SCRATCH) Packaging/stage.sh $(INSTALL_SCRATCH)/release/confab $(STAGE)

install: release
	STAGE=$(STAGE) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) UNITDIR=$(UNITDIR) ZSHDIR=$(ZSHDIR) Packaging/install.sh

uninstall:
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) Packaging/uninstall.sh

# dist/confab_<version>_<arch>.deb: the files `make install` puts, with PREFIX=/usr, the relay's
# unit where systemd looks (not enabled: `systemctl enable --now confab-relay`) and the zsh
# completion where Debian's zsh looks for packages' completions.
DEB_ROOT := .build/deb/root
deb: release
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES=dpkg-dev
	rm -rf $(DEB_ROOT)
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr UNITDIR=/lib/systemd/system \
	    ZSHDIR=/usr/share/zsh/vendor-completions
	Packaging/deb.sh $(DEB_ROOT) dist

clean:
	rm -rf .build Fuzz/.build dist
