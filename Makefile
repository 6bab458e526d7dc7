# jwsinspect — build, run, test, install.
#   make run      build jwsinspect and inspect a bundled real Apple-signed token
#   make build    jwsinspect (offline: no network library) and jwsinspect-fetch (fetch, and
#                 listen where libmicrohttpd is: installs libmicrohttpd-dev (apt-get, as root))
#   make test     swift format's lint, then the whole test suite (Swift Testing), built
#                 strictly (warnings are errors, every import a declared dependency);
#                 installs GNU parallel (apt-get, as root) for the test of its recipe,
#                 libmicrohttpd-dev for listen's server and its tests, and curl (listen's
#                 load and crash tests post with it)
#   make lint     swift format lint --strict (the rules are in .swift-format)
#   make format   swift format, in place
#   make install  PREFIX=/usr/local (DESTDIR supported)
#   make dist     the release tarball dist/jwsinspect-VERSION-linux-ARCH.tar.gz (both programs,
#                 static Swift runtime, man pages, completions), dist/SHA256SUMS and, with
#                 JWSINSPECT_SIGNING_KEY_FILE or JWSINSPECT_SIGNING_KEY, its minisign signature
#   make deb      the Debian package dist/jwsinspect_VERSION-1_ARCH.deb (dpkg-deb, dpkg-shlibdeps),
#                 checked by lintian; installs dpkg-dev and lintian (apt-get, as root)
#   make bench    throughput and single-token timing (release build), then receipts;
#                 BENCH_BASELINE=old/jwsinspect compares with another build, alternately
#   make bench-receipts  the receipt figures of make bench alone
#   make bench-revocation  --check-revocation's cost in a batch (local openssl ocsp), alone
#   make bench-listen  listen's notifications per second, latency and memory (loopback), alone
#   make roots    regenerate the embedded roots from Certificates/
# Every swift build and test is told JWSINSPECT_LISTEN=1 or 0 (Package.swift): whether
# libmicrohttpd's development files are there when the recipe runs.

SWIFT   ?= swift
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
RELEASE := .build/release/jwsinspect
COMPANION := .build/release/jwsinspect-fetch
SAMPLE  := Samples/transaction-sandbox-2022.jws
# A failing command in a pipe fails the recipe (the build's output is filtered below).
SHELL   := /bin/bash
.SHELLFLAGS := -o pipefail -c
# The static Foundation archive's linker warning about mktemp (its own code, not ours).
QUIET_LINK := { grep -v "the use of \`mktemp' is dangerous" || true; }
STRICT  := -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error
# Whether jwsinspect-fetch has `jwsinspect listen` (libmicrohttpd's server), for Package.swift:
# decided as each recipe runs, after listen-deps may have installed it.
LISTEN  := JWSINSPECT_LISTEN=$$(pkg-config --exists libmicrohttpd 2>/dev/null && echo 1 || echo 0)
# The version (the source's) and the commit --version names: 12 hexadecimal digits, "-dirty"
# when the checkout has changes, nothing outside a git checkout. Release builds carry it
# (Package.swift passes it to one C file), so a release says what it was built from.
VERSION := $(shell sed -n 's/^ *static let version = "\([0-9.]*\)"$$/\1/p' Sources/JWSInspectCLI/Documentation/HelpText.swift)
COMMIT  := $(shell git -C "$(CURDIR)" rev-parse --short=12 HEAD 2>/dev/null)$(shell git -C "$(CURDIR)" rev-parse HEAD >/dev/null 2>&1 && test -n "$$(git -C "$(CURDIR)" status --porcelain)" && echo -dirty)
# Full RELRO (-z relro -z now): the dynamic symbols are bound at start, then read-only.
RELEASE_BUILD := $(LISTEN) JWSINSPECT_COMMIT=$(COMMIT) $(SWIFT) build -c release -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now

# $(call apt_install,PACKAGES,a shell test that they are present,why they are needed): as
# root with apt-get, installs them when the test fails, saying so; otherwise does nothing, and
# what needs them says what it skips.
, := ,
define apt_install
@if ! { $(2); } >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	echo "make: installing $(1) (apt-get): $(3)"; \
	apt-get install -y -q $(1) >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q $(1) >/dev/null; } \
		|| { echo "error: apt-get could not install $(1)" >&2; exit 1; }; \
fi
endef

.PHONY: all curl-deps listen-deps test-deps dist-deps deb-deps dist deb build build-inspect build-fetch build-tools run test lint format install uninstall bench bench-listen bench-receipts bench-revocation roots clean deps sanitize fuzz leakcheck difftest

all: build

# Say what to install instead of failing obscurely.
deps:
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "error: Swift 6 is required: install a Swift 6 toolchain from swift.org and put 'swift' on PATH" >&2; exit 1; }
	@command -v pkg-config >/dev/null 2>&1 || { echo "error: pkg-config is missing: run 'apt-get install pkg-config' (Debian/Ubuntu)" >&2; exit 1; }
	@pkg-config --exists 'libcrypto >= 3.0' || { echo "error: OpenSSL 3 development files are missing: run 'apt-get install libssl-dev' (Debian/Ubuntu) or 'brew install openssl@3' (macOS)" >&2; exit 1; }
	@command -v openssl >/dev/null 2>&1 || { echo "error: the openssl command is missing (tests use it as an independent judge of the test PKI): run 'apt-get install openssl' (Debian/Ubuntu)" >&2; exit 1; }

# jwsinspect-fetch links libcurl (URLSession sends requests with it on Linux); statically
# linked, it needs libcurl's development files. As root with apt-get, they are installed;
# otherwise jwsinspect-fetch is linked against the toolchain's shared libraries instead.
CURL_PACKAGE := libcurl4-openssl-dev
curl-deps:
	$(call apt_install,$(CURL_PACKAGE),[ "$$(uname -s)" != Linux ] || pkg-config --exists libcurl,jwsinspect-fetch$(,) the program behind 'jwsinspect fetch'$(,) links libcurl statically; jwsinspect itself needs none of it)

# libmicrohttpd: `jwsinspect listen`'s HTTP server, in jwsinspect-fetch alone (jwsinspect never
# links it). As root with apt-get, its development files are installed; otherwise
# jwsinspect-fetch is built without listen, and build-fetch says so.
LISTEN_PACKAGE := libmicrohttpd-dev
listen-deps:
	$(call apt_install,$(LISTEN_PACKAGE),pkg-config --exists libmicrohttpd,jwsinspect listen$(,) in jwsinspect-fetch$(,) receives notifications with it)

# GNU parallel: a test runs the README's recipe for several processes with it. As root with
# apt-get, it is installed; otherwise that test is skipped, and says why.
PARALLEL_PACKAGE := parallel
test-deps:
	$(call apt_install,$(PARALLEL_PACKAGE),parallel --version | grep -q 'GNU parallel',a test runs the README's GNU parallel recipe)
	$(call apt_install,minisign,command -v minisign,a test signs a release's SHA256SUMS with a throwaway key and verifies it)
	$(call apt_install,curl,command -v curl,listen's tests post thousands of notifications at once with it)

# make dist signs with minisign when given a key; make deb needs dpkg-dev, and lintian checks it.
dist-deps:
	$(if $(JWSINSPECT_SIGNING_KEY_FILE)$(JWSINSPECT_SIGNING_KEY),$(call apt_install,minisign,command -v minisign,make dist signs SHA256SUMS with it))

deb-deps:
	$(call apt_install,dpkg-dev,command -v dpkg-shlibdeps,make deb builds the package with dpkg-deb and dpkg-shlibdeps)
	$(call apt_install,lintian,command -v lintian,make deb checks the package with it)

dist: build dist-deps
	VERSION=$(VERSION) COMMIT=$(COMMIT) MANPAGES="$(MANPAGES)" ./scripts/release.sh tarball

deb: build deb-deps
	VERSION=$(VERSION) COMMIT=$(COMMIT) MANPAGES="$(MANPAGES)" ./scripts/release.sh deb

# jwsinspect: the offline commands, statically linked, no network library (libcrypto and libc).
build-inspect: deps
	$(RELEASE_BUILD) --static-swift-stdlib --product jwsinspect 2>&1 | $(QUIET_LINK)

# jwsinspect-fetch: `jwsinspect fetch`, found beside jwsinspect.
build-fetch: deps curl-deps listen-deps
	@pkg-config --exists libmicrohttpd 2>/dev/null || echo "make: $(LISTEN_PACKAGE) is not installed (and this is not root): jwsinspect-fetch is built without listen; 'apt-get install $(LISTEN_PACKAGE)' adds it"
	@if [ "$$(uname -s)" != Linux ] || pkg-config --exists libcurl; then \
		$(RELEASE_BUILD) --static-swift-stdlib --product jwsinspect-fetch 2>&1 | $(QUIET_LINK); \
	else \
		echo "make: $(CURL_PACKAGE) is not installed (and this is not root): jwsinspect-fetch is linked against this toolchain's shared libraries, so it runs where this toolchain is; 'apt-get install $(CURL_PACKAGE)' makes it self-contained"; \
		$(RELEASE_BUILD) --product jwsinspect-fetch; \
	fi

build: build-inspect build-fetch

# mint-test-tokens: the benchmarks' and the leak check's tokens and receipts.
build-tools: deps
	$(RELEASE_BUILD) --static-swift-stdlib --product mint-test-tokens 2>&1 | $(QUIET_LINK)

run: build-inspect
	$(RELEASE) $(SAMPLE)

test: deps lint test-deps listen-deps
	$(LISTEN) $(SWIFT) test $(STRICT)

# swift-format ships with the Swift 6 toolchain; the rules are in .swift-format.
lint: deps
	@$(SWIFT) format --version >/dev/null 2>&1 || { echo "error: 'swift format' is missing: it ships with Swift 6 toolchains from swift.org (6.0 or later)" >&2; exit 1; }
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift
	@! grep -rnE '^[[:space:]]*(@[A-Za-z]+[[:space:]]+)*(public|open)[[:space:]]' Sources Tests --include='*.swift' || { echo "error: the lines above declare public API: use 'package' (Sources/README.md: what the modules promise)" >&2; exit 1; }

format: deps
	$(SWIFT) format format --in-place --recursive Sources Tests Package.swift

MANDIR  ?= $(PREFIX)/share/man/man1
BASHDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHDIR ?= $(PREFIX)/share/fish/vendor_completions.d

# The man page and the completion scripts are generated by the binary from its option tables.
# The subcommands with a manual page of their own (jwsinspect-fetch(1) …), beside jwsinspect(1).
MANPAGES := fetch listen sign mint timeline verify-offer-v1 completion

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHDIR) $(DESTDIR)$(ZSHDIR) $(DESTDIR)$(FISHDIR)
	install -m 0755 -s $(RELEASE) $(DESTDIR)$(BINDIR)/jwsinspect
	install -m 0755 -s $(COMPANION) $(DESTDIR)$(BINDIR)/jwsinspect-fetch
	$(RELEASE) help --man > $(DESTDIR)$(MANDIR)/jwsinspect.1
	for page in $(MANPAGES); do \
		$(RELEASE) help $$page --man > $(DESTDIR)$(MANDIR)/jwsinspect-$$page.1 && \
		chmod 0644 $(DESTDIR)$(MANDIR)/jwsinspect-$$page.1 || exit 1; \
	done
	$(RELEASE) completion bash > $(DESTDIR)$(BASHDIR)/jwsinspect
	$(RELEASE) completion zsh > $(DESTDIR)$(ZSHDIR)/_jwsinspect
	$(RELEASE) completion fish > $(DESTDIR)$(FISHDIR)/jwsinspect.fish
	chmod 0644 $(DESTDIR)$(MANDIR)/jwsinspect.1 $(DESTDIR)$(BASHDIR)/jwsinspect $(DESTDIR)$(ZSHDIR)/_jwsinspect \
		$(DESTDIR)$(FISHDIR)/jwsinspect.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/jwsinspect $(DESTDIR)$(BINDIR)/jwsinspect-fetch $(DESTDIR)$(MANDIR)/jwsinspect.1 $(DESTDIR)$(BASHDIR)/jwsinspect \
		$(DESTDIR)$(ZSHDIR)/_jwsinspect $(DESTDIR)$(FISHDIR)/jwsinspect.fish
	for page in $(MANPAGES); do rm -f $(DESTDIR)$(MANDIR)/jwsinspect-$$page.1; done

bench: build build-tools
	./scripts/bench.sh

bench-listen: build build-tools
	./scripts/bench-listen.sh

bench-receipts: build build-tools
	./scripts/bench-receipts.sh

bench-revocation: build build-tools
	./scripts/bench-revocation.sh

roots:
	./scripts/embed-roots.sh

# The whole suite under AddressSanitizer (with LeakSanitizer) and under
# ThreadSanitizer, each in its own build folder. (swiftc refuses -sanitize=undefined
# on Linux; Swift traps overflow and out-of-bounds access itself.)
sanitize: deps
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/sanitizers/lsan.supp:print_suppressions=0 \
		$(LISTEN) $(SWIFT) test --sanitize=address --scratch-path .build/asan
	TSAN_OPTIONS=halt_on_error=1 $(LISTEN) $(SWIFT) test --sanitize=thread --scratch-path .build/tsan

# libFuzzer over the scanner, the decode/verify/display path and the whole command
# (Tests/Fuzz/README.md). Optimized: unoptimized Swift under AddressSanitizer is ten times slower.
FUZZ_SECONDS ?= 300
fuzz: deps
	$(LISTEN) $(SWIFT) build -c release --product fuzz-jwsinspect --scratch-path .build/fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
	mkdir -p .build/fuzz-corpus
	.build/fuzz/release/fuzz-jwsinspect -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix=.build/fuzz- -print_final_stats=1 .build/fuzz-corpus Tests/Fuzz/corpus Tests/Fuzz/regressions

# Differential test against Apple's app-store-server-library (PyPI), in a local venv.
DIFFTEST_VENV := .build/difftest-venv
difftest: build
	@command -v python3 >/dev/null 2>&1 || { echo "error: python3 is required for make difftest" >&2; exit 1; }
	@test -x $(DIFFTEST_VENV)/bin/python || python3 -m venv $(DIFFTEST_VENV) || { echo "error: python3 -m venv failed: run 'apt-get install python3-venv'" >&2; exit 1; }
	$(DIFFTEST_VENV)/bin/pip install --quiet --disable-pip-version-check -r scripts/difftest/requirements.txt
	$(DIFFTEST_VENV)/bin/python scripts/difftest/difftest.py $(RELEASE)
	JWSINSPECT_DIFFTEST_PYTHON=$(abspath $(DIFFTEST_VENV))/bin/python $(LISTEN) $(SWIFT) test $(STRICT) --filter 'OfficialClientTests|JSONContractTests'

# valgrind's leak check over a batch through the release binary (OpenSSL objects included).
leakcheck: build build-tools
	./scripts/leakcheck.sh

clean:
	rm -rf .build
