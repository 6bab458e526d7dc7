# jwsinspect — build, run, test, install.
#   make run      build and inspect a bundled real Apple-signed token
#   make test     the whole test suite (Swift Testing)
#   make install  PREFIX=/usr/local (DESTDIR supported)
#   make bench    throughput and single-token timing (release build)
#   make roots    regenerate the embedded roots from Certificates/

SWIFT   ?= swift
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
RELEASE := .build/release/jwsinspect
SAMPLE  := Samples/transaction-sandbox-2022.jws

.PHONY: all build run test install uninstall bench roots clean deps sanitize fuzz leakcheck difftest

all: build

# Say what to install instead of failing obscurely.
deps:
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "error: Swift 6 is required: install a Swift 6 toolchain from swift.org and put 'swift' on PATH" >&2; exit 1; }
	@command -v pkg-config >/dev/null 2>&1 || { echo "error: pkg-config is missing: run 'apt-get install pkg-config' (Debian/Ubuntu)" >&2; exit 1; }
	@pkg-config --exists 'libcrypto >= 3.0' || { echo "error: OpenSSL 3 development files are missing: run 'apt-get install libssl-dev' (Debian/Ubuntu) or 'brew install openssl@3' (macOS)" >&2; exit 1; }

build: deps
	$(SWIFT) build -c release --static-swift-stdlib 2>&1 | grep -v "the use of \`mktemp' is dangerous" || true
	@test -x $(RELEASE) || { echo "error: the release build failed (run '$(SWIFT) build -c release' to see why)" >&2; exit 1; }

run: build
	$(RELEASE) $(SAMPLE)

test: deps
	$(SWIFT) test

install: build
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 -s $(RELEASE) $(DESTDIR)$(BINDIR)/jwsinspect

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/jwsinspect

bench: build
	./scripts/bench.sh

roots:
	./scripts/embed-roots.sh

# The whole suite under AddressSanitizer (with LeakSanitizer) and under
# ThreadSanitizer, each in its own build folder. (swiftc refuses -sanitize=undefined
# on Linux; Swift traps overflow and out-of-bounds access itself.)
sanitize: deps
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/sanitizers/lsan.supp \
		$(SWIFT) test --sanitize=address --scratch-path .build/asan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build/tsan

# libFuzzer over the scanner, the decode/verify/display path and the whole command
# (Tests/Fuzz/README.md). Optimized: unoptimized Swift under AddressSanitizer is ten times slower.
FUZZ_SECONDS ?= 300
fuzz: deps
	$(SWIFT) build -c release --product fuzz-jwsinspect --scratch-path .build/fuzz \
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

# valgrind's leak check over a batch through the release binary (OpenSSL objects included).
leakcheck: build
	./scripts/leakcheck.sh

clean:
	rm -rf .build
