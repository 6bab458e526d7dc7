import Foundation
import TestSupport
import Testing

@testable import JWSInspectCLI

/// The release `make dist` and `make deb` write to dist/: unpacked into a temporary folder,
/// the programs run with no Swift toolchain on PATH or LD_LIBRARY_PATH and link nothing of
/// it; the sums and the package are what the README says. The artefacts are made by a
/// release build, which `make test` does not do: these tests run when dist/ holds this
/// version's artefacts, built from this commit (`.ci/run` makes them first and sets
/// JWSINSPECT_RELEASE_REQUIRED=1, which turns a missing or stale artefact into a failure).
enum Release {
    static let dist = CLI.packageRoot.appendingPathComponent("dist")
    static let required = ProcessInfo.processInfo.environment["JWSINSPECT_RELEASE_REQUIRED"] == "1"
    static let machine: String = {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }()
    static let tarballName = "jwsinspect-\(HelpText.version)-linux-\(machine)"
    static let tarball = dist.appendingPathComponent("\(tarballName).tar.gz")
    static let debianArchitecture = machine == "x86_64" ? "amd64" : machine == "aarch64" ? "arm64" : machine
    static let debName = "jwsinspect_\(HelpText.version)-1_\(debianArchitecture).deb"
    static let deb = dist.appendingPathComponent(debName)

    /// This checkout's commit, as `--version` names it (12 hexadecimal digits), or nil.
    static let head: String? = {
        guard
            let result = try? CLI.runProgram(
                "/usr/bin/env", ["git", "-C", CLI.packageRoot.path, "rev-parse", "--short=12", "HEAD"]),
            result.status == 0
        else { return nil }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// The environment the unpacked programs run in: the system's PATH, no LD_LIBRARY_PATH,
    /// nothing of the toolchain.
    static let systemOnly = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"]

    static let tarballTestable = testable(tarball)
    static let debTestable = testable(deb)
    /// What jwsinspect-fetch links beyond jwsinspect's libraries: libcurl (fetch) and, built
    /// with listen, libmicrohttpd.
    static var companionOwnLibraries: Set<String> {
        #if JWSINSPECT_LISTEN
            ["libcurl.so.4", "libmicrohttpd.so.12"]
        #else
            ["libcurl.so.4"]
        #endif
    }

    /// The release build `make run` makes, when there is one.
    static let built: URL? = {
        let url = CLI.packageRoot.appendingPathComponent(".build/release/jwsinspect")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()

    /// Whether an artefact is there to test: present and of this commit, or required.
    private static func testable(_ artefact: URL) -> Bool {
        required || (FileManager.default.fileExists(atPath: artefact.path) && madeFromHead(artefact))
    }

    /// Whether the programs in `artefact` name this checkout's commit (read from the archive).
    private static func madeFromHead(_ artefact: URL) -> Bool {
        guard let head, let folder = try? unpack(artefact),
            let version = try? run(program(in: folder, artefact: artefact, "jwsinspect"), ["--version"])
        else { return false }
        return version.stdout.contains("(commit \(head)")
    }

    /// Unpacks a tarball (tar) or a package (dpkg -x) into a new temporary folder.
    static func unpack(_ artefact: URL) throws -> URL {
        let folder = try CLI.temporaryDirectory()
        let result =
            artefact.pathExtension == "deb"
            ? try CLI.runProgram("/usr/bin/env", ["dpkg", "-x", artefact.path, folder.path])
            : try CLI.runProgram("/usr/bin/env", ["tar", "-xzf", artefact.path, "-C", folder.path])
        try #require(result.status == 0, "cannot unpack \(artefact.lastPathComponent): \(result.stderr)")
        return folder
    }

    /// Where a program is in an unpacked artefact.
    static func program(in folder: URL, artefact: URL, _ name: String) -> URL {
        artefact.pathExtension == "deb"
            ? folder.appendingPathComponent("usr/bin/\(name)")
            : folder.appendingPathComponent("\(tarballName)/bin/\(name)")
    }

    /// Runs `program` with the system's libraries and PATH alone, in `directory`.
    static func run(_ program: URL, _ arguments: [String], in directory: URL? = nil) throws -> CLI.Result {
        CLI.Result(
            try ChildProcess.run(
                program.path, arguments, environment: systemOnly, directory: directory ?? CLI.temporaryDirectory()))
    }

    /// The shared objects `ldd` names for `binary`, by soname (vdso and the loader left out),
    /// and every line that resolves into the Swift toolchain or is not found.
    static func linked(_ binary: URL) throws -> (names: Set<String>, problems: [String]) {
        let result = try CLI.runProgram("/usr/bin/env", ["ldd", binary.path])
        try #require(result.status == 0, "ldd \(binary.path): \(result.stderr)")
        let toolchain = try toolchainPrefix()
        var names: Set<String> = []
        var problems: [String] = []
        for line in result.stdout.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            let name = String(text.prefix { $0 != " " })
            if text.contains("not found") || text.contains("libswift") || toolchain.map({ text.contains($0) }) == true {
                problems.append(text)
            }
            if name.hasPrefix("linux-vdso") || name.contains("/ld-linux") { continue }
            names.insert(name)
        }
        return (names, problems)
    }

    /// The folder the Swift toolchain is installed in (/opt/swift/usr for /opt/swift/usr/bin/swift).
    static func toolchainPrefix() throws -> String? {
        let found = try CLI.runProgram("/bin/sh", ["-c", "readlink -f \"$(command -v swift)\""])
        let path = found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard found.status == 0, !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent().path + "/"
    }

    /// The sonames a document lists after `marker` ("- `jwsinspect`:"), on its line and the
    /// indented lines that continue it.
    static func listed(in document: String, after marker: String) throws -> Set<String> {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.contains(marker) }, "\(document) has no line with \(marker)")
        var item = String(lines[start][lines[start].range(of: marker)!.upperBound...])
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("  "), !line.trimmingCharacters(in: .whitespaces).isEmpty else { break }
            item += " " + line
        }
        return Set(item.matches(of: /lib[A-Za-z0-9_+-]*\.so\.[0-9.]*[0-9]/).map { String($0.output) })
    }

    /// The README's `sh` blocks in its Install section.
    static func installBlocks() throws -> [ExamplesRunTests.Block] {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = ExamplesRunTests.section(of: readme, headed: "## Install")
        return ExamplesRunTests.shellBlocks(readme).filter { section.contains($0.line) }
    }
}

@Suite(.timeLimit(.minutes(10)), .serialized) struct ReleaseTests {
    @Test(
        "The tarball unpacked anywhere runs with the system's libraries alone",
        .enabled(if: Release.tarballTestable, "dist/ holds no tarball of this commit: run make dist"))
    func tarballRunsWithoutTheToolchain() throws {
        try #require(FileManager.default.fileExists(atPath: Release.tarball.path), "run make dist first")
        let folder = try Release.unpack(Release.tarball)
        let root = folder.appendingPathComponent(Release.tarballName)
        let listing = try CLI.runProgram("/usr/bin/env", ["tar", "-tzf", Release.tarball.path])
        let entries = Set(listing.stdout.split(separator: "\n").map { String($0) })
        var expected = Set(
            [
                "bin/jwsinspect", "bin/jwsinspect-fetch", "share/man/man1/jwsinspect.1",
                "share/bash-completion/completions/jwsinspect", "share/zsh/site-functions/_jwsinspect",
                "share/fish/vendor_completions.d/jwsinspect.fish", "README.md", "LICENSE", "CHANGELOG.md",
                "Samples/README.md", "Samples/transaction-sandbox-2022.jws",
                "Samples/notification-test-sandbox-2025.jws", "Samples/notification-subscribed-sandbox-2025.jws",
                "Samples/receipt-production-2024.der", "Samples/storekit1-transaction-receipt.b64",
            ]
                + ManPageTests.pages.map { "share/man/man1/jwsinspect-\($0).1" })
        expected.formUnion(["", "bin/", "share/", "share/man/", "share/man/man1/", "Samples/"])
        expected.formUnion([
            "share/bash-completion/", "share/bash-completion/completions/", "share/zsh/", "share/zsh/site-functions/",
            "share/fish/", "share/fish/vendor_completions.d/",
        ])
        #expect(entries == Set(expected.map { "\(Release.tarballName)/\($0)" }), "\(entries.sorted())")

        // Not vacuous: no swift on this PATH, and the toolchain's libraries are not found there.
        let swift = try ChildProcess.run("/bin/sh", ["-c", "command -v swift"], environment: Release.systemOnly)
        #expect(swift.status != 0, "swift is on the PATH the release runs with")

        let inspect = root.appendingPathComponent("bin/jwsinspect")
        let sample = try Release.run(inspect, ["Samples/transaction-sandbox-2022.jws"], in: root)
        #expect(sample.status == 0, "\(sample.stderr)")
        #expect(sample.stdout.hasPrefix("VALID — authentic Apple-signed transaction"), "\(sample.stdout.prefix(200))")
        let fetchHelp = try Release.run(inspect, ["fetch", "--help"], in: root)
        #expect(fetchHelp.status == 0, "\(fetchHelp.stderr)")
        #expect(fetchHelp.stdout.contains("jwsinspect fetch — ask the App Store Server API"))
        for name in ["jwsinspect", "jwsinspect-fetch"] {
            let version = try Release.run(root.appendingPathComponent("bin/\(name)"), ["--version"])
            #expect(version.stdout.hasPrefix("jwsinspect \(HelpText.version) (commit "), "\(version.stdout)")
            if let head = Release.head {
                #expect(
                    version.stdout.contains("(commit \(head)"), "\(name) --version: \(version.stdout), HEAD \(head)")
            }
            #expect(version.stdout.contains(", OpenSSL 3."), "\(version.stdout)")
            let linked = try Release.linked(root.appendingPathComponent("bin/\(name)"))
            #expect(linked.problems.isEmpty, "\(name) links into the toolchain or misses: \(linked.problems)")
        }
        // The man page the tarball carries is the one the program generates.
        let page = try String(contentsOf: root.appendingPathComponent("share/man/man1/jwsinspect.1"), encoding: .utf8)
        #expect(page == (try Release.run(inspect, ["help", "--man"]).stdout))
    }

    @Test(
        "The Debian package unpacked into a throwaway root runs, installs where Debian expects, depends on what it links",
        .enabled(if: Release.debTestable, "dist/ holds no package of this commit: run make deb"))
    func packageRunsFromAThrowawayRoot() throws {
        try #require(FileManager.default.fileExists(atPath: Release.deb.path), "run make deb first")
        let root = try Release.unpack(Release.deb)
        for path in [
            "usr/bin/jwsinspect", "usr/bin/jwsinspect-fetch", "usr/share/man/man1/jwsinspect.1.gz",
            "usr/share/man/man1/jwsinspect-fetch.1.gz", "usr/share/man/man1/jwsinspect-listen.1.gz",
            "usr/share/man/man1/jwsinspect-completion.1.gz",
            "usr/share/bash-completion/completions/jwsinspect", "usr/share/zsh/vendor-completions/_jwsinspect",
            "usr/share/fish/vendor_completions.d/jwsinspect.fish", "usr/share/doc/jwsinspect/copyright",
            "usr/share/doc/jwsinspect/changelog.Debian.gz", "usr/share/doc/jwsinspect/changelog.gz",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path), "no \(path)")
        }
        let inspect = root.appendingPathComponent("usr/bin/jwsinspect")
        let sample = try Release.run(
            inspect, [CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path])
        #expect(sample.status == 0, "\(sample.stderr)")
        let fetchHelp = try Release.run(inspect, ["fetch", "--help"])
        #expect(fetchHelp.status == 0, "\(fetchHelp.stderr)")
        let version = try Release.run(inspect, ["--version"])
        if let head = Release.head { #expect(version.stdout.contains("(commit \(head)"), "\(version.stdout)") }

        let field = { (name: String) throws -> String in
            try CLI.runProgram("/usr/bin/env", ["dpkg-deb", "-f", Release.deb.path, name]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try field("Version") == "\(HelpText.version)-1")
        let depends = try field("Depends")
        for package in ["libc6", "libssl3", "libcurl4", "libstdc++6", "libgcc-s1"] {
            #expect(depends.contains("\(package) ("), "Depends: \(depends)")
        }
    }

    @Test(
        "SHA256SUMS names this version's artefacts and they match it",
        .enabled(if: Release.tarballTestable, "dist/ holds no tarball of this commit: run make dist"))
    func sumsMatchTheArtefacts() throws {
        let sums = try String(contentsOf: Release.dist.appendingPathComponent("SHA256SUMS"), encoding: .utf8)
        #expect(sums.contains("  \(Release.tarballName).tar.gz\n"), "\(sums)")
        if FileManager.default.fileExists(atPath: Release.deb.path) {
            #expect(sums.contains("  \(Release.debName)\n"), "\(sums)")
        }
        let check = try ChildProcess.run("/usr/bin/env", ["sha256sum", "-c", "SHA256SUMS"], directory: Release.dist)
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }

    @Test(
        "The README's and the threat model's library lists are what the release programs link",
        .enabled(if: Release.tarballTestable || Release.built != nil, "no release build: run make run"))
    func documentedLibrariesAreWhatTheProgramsLink() throws {
        // The tarball's programs when there is one, else the release build's (make run makes it).
        var programs: [String: URL] = [:]
        if Release.tarballTestable {
            let folder = try Release.unpack(Release.tarball)
            for name in ["jwsinspect", "jwsinspect-fetch"] {
                programs[name] = Release.program(in: folder, artefact: Release.tarball, name)
            }
        } else {
            for name in ["jwsinspect", "jwsinspect-fetch"] {
                let built = CLI.packageRoot.appendingPathComponent(".build/release/\(name)")
                if FileManager.default.isExecutableFile(atPath: built.path) { programs[name] = built }
            }
        }
        try #require(programs["jwsinspect"] != nil, "no release build of jwsinspect: run make run")
        let offline = try Release.linked(programs["jwsinspect"]!).names
        #expect(offline.contains("libcrypto.so.3"), "not vacuous: \(offline)")
        #expect(try Release.listed(in: "README.md", after: "- `jwsinspect`:") == offline)
        #expect(try Release.listed(in: "docs/threat-model.md", after: #"ldd "$(command -v jwsinspect)""#) == offline)
        // jwsinspect-fetch: what it links itself (ldd adds what libcurl loads, listed apart).
        if let online = programs["jwsinspect-fetch"], try Release.linked(online).problems.isEmpty {
            let needed = try CLI.runProgram("/usr/bin/env", ["readelf", "-d", online.path])
            try #require(needed.status == 0, "readelf: \(needed.stderr)")
            // The loader (ld-linux), which ldd shows apart, is left out as above.
            let direct = Set(
                needed.stdout.matches(of: /Shared library: \[([^\]]+)\]/).map { String($0.output.1) }.filter {
                    !$0.hasPrefix("ld-linux")
                })
            #expect(direct == offline.union(Release.companionOwnLibraries), "\(direct.sorted())")
            // The README lists what a release links: listen's libmicrohttpd too.
            #expect(
                try Release.listed(in: "README.md", after: "- `jwsinspect-fetch`:")
                    == direct.union(["libmicrohttpd.so.12"]))
        }
    }
}

extension ReleaseTests {
    @Test("The README's install commands name this version's files; the CHANGELOG has this version")
    func readmeAndChangelogNameThisVersion() throws {
        let blocks = try Release.installBlocks().map(\.text).joined(separator: "\n")
        #expect(blocks.contains("jwsinspect-\(HelpText.version)-linux-x86_64.tar.gz"), "\(blocks)")
        #expect(blocks.contains("apt install ./jwsinspect_\(HelpText.version)-1_amd64.deb"), "\(blocks)")
        let changelog = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("\n## [\(HelpText.version)] - \(HelpText.versionDate)\n"))
        #expect(changelog.contains("\n## [Unreleased]\n"))
    }

    @Test(
        "The README's tarball commands run as written in the folder of a signed release",
        .enabled(if: Release.tarballTestable && Minisign.path != nil, "run make dist (and install minisign)"))
    func readmeInstallCommandsRun() throws {
        let block = try #require(try Release.installBlocks().first { $0.text.contains("tar -xzf") })
        // The release's files as downloaded: the tarball, SHA256SUMS and its signature by a
        // throwaway key standing in for the maintainers', whose public half is release-key.pub.
        let signed = try ReleaseSignatureTests.Folder(password: nil)
        try FileManager.default.removeItem(at: signed.artefact)
        try FileManager.default.copyItem(
            at: Release.tarball, to: signed.url.appendingPathComponent(Release.tarball.lastPathComponent))
        let made = try signed.sign(["JWSINSPECT_SIGNING_KEY_FILE": signed.secretKey.path])
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.copyItem(at: signed.publicKey, to: signed.url.appendingPathComponent("release-key.pub"))
        let script = try ExamplesRunTests.checkedScript(block.text, line: block.line)
        #expect(script.commands == 5)
        for _ in 1...2 {
            let result = CLI.Result(
                try ChildProcess.run(
                    "/bin/bash", ["-c", script.text], environment: Release.systemOnly, directory: signed.url))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("README line"), "\(result.stderr)")
            #expect(result.stdout.contains("VALID — authentic Apple-signed transaction"), "\(result.stdout)")
        }
    }
}

/// make dist's signature: SHA256SUMS signed by minisign with a key from the environment (a
/// file or its contents, with or without a password), verified with its public half; a changed
/// artefact fails the sums, a changed SHA256SUMS fails the signature, a wrong password leaves no
/// signature, and no key leaves the release unsigned, saying so.
enum Minisign {
    static let path: String? = {
        guard let found = try? CLI.runProgram("/bin/sh", ["-c", "command -v minisign"]), found.status == 0 else {
            return nil
        }
        return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }()
}

@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: Minisign.path != nil, "minisign is not installed (make test installs it as root)"))
struct ReleaseSignatureTests {
    /// A folder holding a stand-in artefact of this version, and a throwaway key pair.
    struct Folder {
        let url: URL
        let artefact: URL
        let publicKey: URL
        let secretKey: URL

        init(password: String?) throws {
            url = try CLI.temporaryDirectory()
            artefact = url.appendingPathComponent("\(Release.tarballName).tar.gz")
            try Data("a release, for the test\n".utf8).write(to: artefact)
            let keys = try CLI.temporaryDirectory()
            publicKey = keys.appendingPathComponent("release-key.pub")
            secretKey = keys.appendingPathComponent("release.key")
            let generate = try ChildProcess.run(
                Minisign.path!,
                ["-G", "-p", publicKey.path, "-s", secretKey.path] + (password == nil ? ["-W"] : []),
                input: password.map { .bytes(Array("\($0)\n\($0)\n".utf8)) } ?? .nullDevice)
            try #require(generate.status == 0, "minisign -G: \(generate.stderr)")
        }

        /// `scripts/release.sh sums` over this folder, with `environment` added.
        func sign(_ environment: [String: String]) throws -> CLI.Result {
            var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("JWSINSPECT_SIGNING") }
            variables.merge(["VERSION": HelpText.version, "COMMIT": "0123456789ab"]) { $1 }
            variables.merge(environment) { $1 }
            return CLI.Result(
                try ChildProcess.run(
                    CLI.packageRoot.appendingPathComponent("scripts/release.sh").path, ["sums", url.path],
                    environment: variables))
        }

        func verify() throws -> CLI.Result {
            CLI.Result(
                try ChildProcess.run(
                    Minisign.path!, ["-V", "-p", publicKey.path, "-m", url.appendingPathComponent("SHA256SUMS").path]))
        }

        func sums() throws -> CLI.Result {
            CLI.Result(try ChildProcess.run("/usr/bin/env", ["sha256sum", "-c", "SHA256SUMS"], directory: url))
        }

        var signature: URL { url.appendingPathComponent("SHA256SUMS.minisig") }
    }

    @Test func aKeyFileSignsAndTheSignatureVerifies() throws {
        let folder = try Folder(password: nil)
        let signed = try folder.sign(["JWSINSPECT_SIGNING_KEY_FILE": folder.secretKey.path])
        #expect(signed.status == 0, "\(signed.stdout) \(signed.stderr)")
        #expect(signed.stdout.contains("signed: "), "\(signed.stdout)")
        let verified = try folder.verify()
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stdout.contains("Trusted comment: jwsinspect \(HelpText.version) commit 0123456789ab"))
        #expect(try folder.sums().status == 0)

        // A changed artefact fails the sums; a changed SHA256SUMS fails the signature.
        try Data("another release\n".utf8).write(to: folder.artefact)
        #expect(try folder.sums().status != 0)
        let sums = folder.url.appendingPathComponent("SHA256SUMS")
        let honest = try Data(contentsOf: sums)
        var forged = honest
        forged[0] = forged[0] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try forged.write(to: sums)
        #expect(try folder.verify().status != 0, "a changed SHA256SUMS verifies")
        try honest.write(to: sums)
        #expect(try folder.verify().status == 0, "not vacuous: the honest one verifies")
        // Another key's public half does not verify it.
        let other = try Folder(password: nil)
        let foreign = try ChildProcess.run(Minisign.path!, ["-V", "-p", other.publicKey.path, "-m", sums.path])
        #expect(foreign.status != 0)
    }

    @Test func aKeyInTheEnvironmentWithItsPasswordSigns() throws {
        let folder = try Folder(password: "correct horse")
        let key = try String(contentsOf: folder.secretKey, encoding: .utf8)
        let signed = try folder.sign([
            "JWSINSPECT_SIGNING_KEY": key, "JWSINSPECT_SIGNING_PASSWORD": "correct horse",
        ])
        #expect(signed.status == 0, "\(signed.stdout) \(signed.stderr)")
        #expect(try folder.verify().status == 0)

        let wrong = try folder.sign(["JWSINSPECT_SIGNING_KEY": key, "JWSINSPECT_SIGNING_PASSWORD": "wrong"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("error: minisign could not sign"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.signature.path), "a stale signature is left")
    }

    @Test func noKeyLeavesTheReleaseUnsignedAndSaysSo() throws {
        let folder = try Folder(password: nil)
        let unsigned = try folder.sign([:])
        #expect(unsigned.status == 0, "\(unsigned.stderr)")
        #expect(unsigned.stdout.contains("not signed: set JWSINSPECT_SIGNING_KEY_FILE"), "\(unsigned.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.signature.path))
        #expect(try folder.sums().status == 0)
        let missing = try folder.sign(["JWSINSPECT_SIGNING_KEY_FILE": folder.url.appendingPathComponent("none").path])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("which is not a file"), "\(missing.stderr)")
    }
}
