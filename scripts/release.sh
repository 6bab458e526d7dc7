#!/usr/bin/env bash
# The release artefacts, made from the release builds in .build/release (make dist, make deb):
#
#   scripts/release.sh tarball   dist/jwsinspect-VERSION-linux-ARCH.tar.gz, then sums
#   scripts/release.sh deb       dist/jwsinspect_VERSION-1_DEBARCH.deb, checked by lintian,
#                                then sums
#   scripts/release.sh sums DIR  DIR/SHA256SUMS over this version's artefacts in DIR and, with a
#                                signing key, DIR/SHA256SUMS.minisig
#
# The Makefile passes VERSION (the source's), COMMIT (what --version must name) and MANPAGES.
# The signing key is never in the repository: JWSINSPECT_SIGNING_KEY_FILE names a minisign
# secret key file, or JWSINSPECT_SIGNING_KEY holds its contents (a CI secret);
# JWSINSPECT_SIGNING_PASSWORD is its password when it has one. Without a key the release is
# unsigned, and this says so. docs/install.md says how a user verifies a release.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${VERSION:?VERSION is not set: run this through make dist or make deb}"
COMMIT=${COMMIT:-}
MANPAGES=${MANPAGES:-fetch sign mint timeline verify-offer-v1 completion}
DIST=${DIST:-dist}
ARCH=$(uname -m)
NAME="jwsinspect-$VERSION-linux-$ARCH"
BUILT=.build/release
# The maintainers' public minisign key, once published: a release signature must verify with it.
PUBLISHED_KEY=packaging/release-key.pub
# Every file of a release is dated by the commit (reproducible archives), or now outside git.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
umask 022

# The signing key's copy and the new signature live here until the script ends.
SCRATCH=
trap '[ -z "$SCRATCH" ] || rm -rf "$SCRATCH"' EXIT

fail() {
    echo "error: $*" >&2
    exit 1
}
say() { echo "release: $*"; }

# A folder this script writes into: made if missing, never through a symbolic link.
own_folder() {
    [ ! -L "$1" ] || fail "'$1' is a symbolic link: remove it (release files are never written through one)"
    mkdir -p "$1"
}

# Fails unless $1 runs with the system's libraries alone: nothing missing, nothing from the
# Swift toolchain (a build that fell back to the toolchain's shared libraries).
self_contained() {
    local binary=$1 linked toolchain
    linked=$(ldd "$binary") || fail "ldd $binary failed"
    toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
    if grep -q 'not found' <<<"$linked"; then
        fail "$binary needs a library this machine lacks:"$'\n'"$linked"
    fi
    if grep -qE "libswift|libFoundation|libdispatch|libBlocksRuntime|=> $toolchain/" <<<"$linked"; then
        fail "$binary links the Swift toolchain's shared libraries, so it runs only where the toolchain is;" \
            "build it with --static-swift-stdlib (for jwsinspect-fetch: apt-get install libcurl4-openssl-dev," \
            "then make dist again)"
    fi
}

# The two programs, checked: self-contained, and built from this commit.
check_builds() {
    local binary line
    for binary in "$BUILT/jwsinspect" "$BUILT/jwsinspect-fetch"; do
        [ -x "$binary" ] || fail "$binary is missing: run make build"
        self_contained "$binary"
        line=$("$binary" --version)
        case "$line" in
        "jwsinspect $VERSION ("*) ;;
        *) fail "$binary says '$line', not version $VERSION: run make build" ;;
        esac
        if [ -n "$COMMIT" ] && [[ "$line" != "jwsinspect $VERSION (commit $COMMIT, "* ]]; then
            fail "$binary says '$line', not commit $COMMIT: run make build"
        fi
    done
    # A release has `jwsinspect listen`: jwsinspect-fetch built with libmicrohttpd.
    readelf -d "$BUILT/jwsinspect-fetch" | grep -q 'Shared library: \[libmicrohttpd\.so\.' \
        || fail "$BUILT/jwsinspect-fetch was built without listen (it links no libmicrohttpd):" \
            "apt-get install libmicrohttpd-dev, then make dist again"
    case "$COMMIT" in
    "") say "warning: not built from a git checkout: --version names no commit" ;;
    *-dirty) say "warning: built from a checkout with changes ($COMMIT): build a release from a clean one" ;;
    esac
}

# The two programs into $1, stripped as Debian strips (symbols, .comment and .note).
install_programs() {
    local program
    for program in jwsinspect jwsinspect-fetch; do
        install -m 0755 "$BUILT/$program" "$1/$program"
        strip --remove-section=.comment --remove-section=.note "$1/$program"
    done
}

# What the programs generate from their option tables, into $1: man pages (man1/) and the
# bash, zsh and fish completions (completions/).
generate_documents() {
    local into=$1 page
    rm -rf "$into"
    mkdir -p "$into/man1" "$into/completions"
    "$BUILT/jwsinspect" help --man >"$into/man1/jwsinspect.1"
    for page in $MANPAGES; do
        "$BUILT/jwsinspect" help "$page" --man >"$into/man1/jwsinspect-$page.1"
    done
    "$BUILT/jwsinspect" completion bash >"$into/completions/jwsinspect.bash"
    "$BUILT/jwsinspect" completion zsh >"$into/completions/_jwsinspect"
    "$BUILT/jwsinspect" completion fish >"$into/completions/jwsinspect.fish"
}

# Writes $2 from standard input through a temporary file beside it: a reader never sees half.
write_atomically() {
    local target=$1 temporary
    [ ! -L "$target" ] || fail "'$target' is a symbolic link: remove it"
    temporary=$(mktemp "$target.XXXXXX")
    cat >"$temporary" || {
        rm -f "$temporary"
        fail "cannot write $target"
    }
    chmod 0644 "$temporary"
    mv -f "$temporary" "$target"
}

tarball() {
    check_builds
    local stage=.build/dist
    local root="$stage/$NAME"
    rm -rf "$stage"
    mkdir -p "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
        "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d" "$root/Samples"
    install_programs "$root/bin"
    generate_documents "$stage/generated"
    install -m 0644 "$stage"/generated/man1/*.1 "$root/share/man/man1/"
    install -m 0644 "$stage/generated/completions/jwsinspect.bash" "$root/share/bash-completion/completions/jwsinspect"
    install -m 0644 "$stage/generated/completions/_jwsinspect" "$root/share/zsh/site-functions/_jwsinspect"
    install -m 0644 "$stage/generated/completions/jwsinspect.fish" "$root/share/fish/vendor_completions.d/"
    install -m 0644 README.md LICENSE CHANGELOG.md "$root/"
    install -m 0644 Samples/* "$root/Samples/"
    own_folder "$DIST"
    # The same files, owners, order and dates give the same bytes (gzip -n: no name, no time).
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" --format=gnu \
        -C "$stage" -cf - "$NAME" | gzip -9n | write_atomically "$DIST/$NAME.tar.gz"
    say "wrote $DIST/$NAME.tar.gz ($(du -h "$DIST/$NAME.tar.gz" | cut -f1))"
    sums "$DIST"
}

deb() {
    check_builds
    local tool
    for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture; do
        command -v "$tool" >/dev/null ||
            fail "$tool is missing: run 'apt-get install dpkg-dev' (make deb does it when run as root)"
    done
    local debarch revision=1 maintainer
    debarch=$(dpkg-architecture -qDEB_HOST_ARCH)
    maintainer=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || true)}
    [ -n "$maintainer" ] || fail "no maintainer: set DEB_MAINTAINER='Name <address>'"
    local package="jwsinspect_${VERSION}-${revision}_$debarch.deb"
    local stage=.build/deb
    local root="$stage/root"
    local doc="$root/usr/share/doc/jwsinspect"
    rm -rf "$stage"
    mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
        "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
        "$root/usr/share/fish/vendor_completions.d" "$doc" "$stage/source/debian"
    install_programs "$root/usr/bin"
    generate_documents "$stage/generated"
    local page
    for page in "$stage"/generated/man1/*.1; do
        gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"
    done
    install -m 0644 "$stage/generated/completions/jwsinspect.bash" "$root/usr/share/bash-completion/completions/jwsinspect"
    install -m 0644 "$stage/generated/completions/_jwsinspect" "$root/usr/share/zsh/vendor-completions/_jwsinspect"
    install -m 0644 "$stage/generated/completions/jwsinspect.fish" "$root/usr/share/fish/vendor_completions.d/"
    install -m 0644 packaging/debian/copyright "$doc/copyright"
    gzip -9n <CHANGELOG.md >"$doc/changelog.gz"
    gzip -9n <README.md >"$doc/README.md.gz"
    # Debian's own changelog: one entry per package version, pointing at the project's.
    {
        echo "jwsinspect ($VERSION-$revision) unstable; urgency=medium"
        echo
        echo "  * Release $VERSION. What changed: /usr/share/doc/jwsinspect/changelog.gz."
        echo
        echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
    } | gzip -9n >"$doc/changelog.Debian.gz"
    find "$root" -type d -exec chmod 0755 {} +
    find "$root/usr/share" -type f -exec chmod 0644 {} +

    # Depends, from the libraries the programs link (dpkg-shlibdeps reads debian/control).
    printf 'Source: jwsinspect\n\nPackage: jwsinspect\nArchitecture: any\n' >"$stage/source/debian/control"
    local substvars depends
    substvars=$(cd "$stage/source" && dpkg-shlibdeps -O "-e../root/usr/bin/jwsinspect" \
        "-e../root/usr/bin/jwsinspect-fetch") || fail "dpkg-shlibdeps failed"
    depends=$(sed -n 's/^shlibs:Depends=//p' <<<"$substvars")
    [ -n "$depends" ] || fail "dpkg-shlibdeps named no dependency: $substvars"
    [[ "$depends" == *libmicrohttpd12* ]] || fail "dpkg-shlibdeps did not name libmicrohttpd12: $depends"
    cat >"$root/DEBIAN/control" <<EOF
Package: jwsinspect
Version: $VERSION-$revision
Architecture: $debarch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: utils
Priority: optional
Description: decode and verify App Store signed data (StoreKit 2 JWS, receipts)
 jwsinspect decodes and verifies everything the App Store signs: StoreKit 2
 transactions and renewal info, App Store Server Notifications V2, app
 transactions, the JWS inside App Store Server API answers, developer tokens
 and legacy receipts. It says which check failed and whether the customer has
 access, until when and why, as a table or as JSON. It works offline;
 jwsinspect fetch (jwsinspect-fetch) asks the App Store Server API.
EOF
    (cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

    own_folder "$DIST"
    local built="$stage/$package"
    dpkg-deb --root-owner-group -Zxz --build "$root" "$built" >/dev/null
    if command -v lintian >/dev/null; then
        # Errors fail the build; warnings are shown (docs/install.md says why each).
        lintian --fail-on error --tag-display-limit 0 "$built" ||
            fail "lintian reports errors in $package (above)"
        say "lintian: no errors in $package"
    else
        say "lintian is not installed, so $package was not checked: 'apt-get install lintian' (make deb does it as root)"
    fi
    write_atomically "$DIST/$package" <"$built"
    say "wrote $DIST/$package (Depends: $depends)"
    sums "$DIST"
}

# SHA256SUMS over this version's artefacts in $1, and its signature when a key is given.
sums() {
    local folder=$1 artefacts=()
    local file
    for file in "$folder"/jwsinspect-"$VERSION"-linux-*.tar.gz "$folder"/jwsinspect_"$VERSION"-*_*.deb; do
        [ -f "$file" ] || continue
        # One made from an earlier build of this version is stale: the sums name this build's.
        if [ "$folder" = "$DIST" ] && [ "$file" -ot "$BUILT/jwsinspect" ]; then
            rm -f "$file"
            say "removed $file: it was made from an earlier build"
            continue
        fi
        artefacts+=("$(basename "$file")")
    done
    [ ${#artefacts[@]} -gt 0 ] || fail "no release artefact of version $VERSION in $folder"
    (cd "$folder" && sha256sum -- "${artefacts[@]}") | write_atomically "$folder/SHA256SUMS"
    say "wrote $folder/SHA256SUMS (${artefacts[*]})"
    sign "$folder"
}

# SHA256SUMS.minisig: minisign's detached Ed25519 signature, its trusted comment naming the
# version and commit. Then verified with the key's public half before it is kept.
sign() {
    local folder=$1
    local signature="$folder/SHA256SUMS.minisig"
    rm -f "$signature"
    if [ -z "${JWSINSPECT_SIGNING_KEY_FILE:-}" ] && [ -z "${JWSINSPECT_SIGNING_KEY:-}" ]; then
        say "not signed: set JWSINSPECT_SIGNING_KEY_FILE (a minisign secret key file) or JWSINSPECT_SIGNING_KEY to sign SHA256SUMS"
        return 0
    fi
    command -v minisign >/dev/null || fail "minisign is missing: run 'apt-get install minisign' (make dist does it as root)"
    local scratch key
    scratch=$(mktemp -d)
    SCRATCH=$scratch
    if [ -n "${JWSINSPECT_SIGNING_KEY_FILE:-}" ]; then
        [ -f "$JWSINSPECT_SIGNING_KEY_FILE" ] || fail "JWSINSPECT_SIGNING_KEY_FILE names '$JWSINSPECT_SIGNING_KEY_FILE', which is not a file"
        key=$JWSINSPECT_SIGNING_KEY_FILE
    else
        key="$scratch/secret.key"
        (umask 077 && printf '%s\n' "$JWSINSPECT_SIGNING_KEY" >"$key")
    fi
    local password=${JWSINSPECT_SIGNING_PASSWORD:-}
    local comment="jwsinspect $VERSION${COMMIT:+ commit $COMMIT} SHA256SUMS"
    # The password as standard input (a here-string: a pipe would fail the pipeline when
    # minisign, with a key that has none, exits before reading it).
    minisign -S -s "$key" -x "$scratch/SHA256SUMS.minisig" -t "$comment" -m "$folder/SHA256SUMS" \
        >/dev/null <<<"$password" || fail "minisign could not sign $folder/SHA256SUMS"
    minisign -R -s "$key" -p "$scratch/public.key" >/dev/null 2>&1 <<<"$password" ||
        fail "minisign could not derive the public key from the secret key"
    minisign -V -q -p "$scratch/public.key" -x "$scratch/SHA256SUMS.minisig" -m "$folder/SHA256SUMS" ||
        fail "the new signature of $folder/SHA256SUMS does not verify"
    # A release is signed with the published key or not at all: users check it against that.
    if [ "$folder" = "$DIST" ] && [ -f "$PUBLISHED_KEY" ] &&
        [ "$(tail -n 1 "$scratch/public.key")" != "$(tail -n 1 "$PUBLISHED_KEY")" ]; then
        fail "the signing key is not the one published in $PUBLISHED_KEY, which users verify with"
    fi
    write_atomically "$signature" <"$scratch/SHA256SUMS.minisig"
    say "signed: $signature, public key $(tail -n 1 "$scratch/public.key")"
}

case "${1:-}" in
tarball) tarball ;;
deb) deb ;;
sums)
    [ -n "${2:-}" ] || fail "usage: scripts/release.sh sums FOLDER"
    sums "$2"
    ;;
*) fail "usage: scripts/release.sh tarball|deb|sums FOLDER" ;;
esac
