import Foundation
import JWSInspectCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private typealias Seed = MockAppStoreServer.Seed

/// Every file jwsinspect writes (`mint ca`, `mint suite`, `fetch --save`) goes through one writer
/// (`System.writeFile`): a new temporary file renamed over the name, so nothing is ever written
/// through a symbolic link or a hard link and no mode is changed outside the folder; a symbolic
/// link at a name is refused, and so is a folder others may write in (issue 23).
@Suite(.timeLimit(.minutes(10))) struct FileWriteTests {
    /// A file outside the folder written to, that nothing may change: its text and mode.
    struct Outside {
        let folder: URL
        let victim: URL
        static let text = "not jwsinspect's\n"

        init() throws {
            folder = try CLI.temporaryDirectory()
            victim = folder.appendingPathComponent("victim")
            try CLI.write(Self.text, to: victim)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: victim.path)
        }

        /// The outside file is as it was, and nothing else was created beside it.
        func expectUnchanged(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try String(contentsOf: victim, encoding: .utf8) == Self.text, sourceLocation: sourceLocation)
            #expect(try FileWriteTests.mode(victim.path) == 0o640, sourceLocation: sourceLocation)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(names == ["victim"], sourceLocation: sourceLocation)
        }
    }

    static func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeSymbolicLink
    }

    /// The names in a folder that a write left behind half done (none may be).
    static func temporaries(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
    }

    static func chmod(_ url: URL, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    /// A CA `mint ca` wrote, for the suite.
    static let ca: URL = {
        let folder = try! CLI.temporaryDirectory().appendingPathComponent("ca")
        let result = InProcess.run(["mint", "ca", "--out", folder.path])
        precondition(result.status == 0, result.stderr)
        return folder
    }()

    static func suite(_ out: URL, force: Bool = true) -> InProcess.Result {
        InProcess.run(["mint", "suite", "--ca", ca.path, "--out", out.path] + (force ? ["--force"] : []))
    }

    @Test(arguments: ["root.der", "leaf-key.p8", "README.txt"])
    func mintCAForceNeverWritesThroughASymbolicLink(_ name: String) throws {
        let outside = try Outside()
        for target in [outside.victim, outside.folder.appendingPathComponent("created")] {
            let out = try CLI.temporaryDirectory()
            let link = out.appendingPathComponent(name).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target.path)
            let result = InProcess.run(["mint", "ca", "--out", out.path, "--force"])
            #expect(result.status == 74, "\(result.stderr)")
            #expect(
                result.stderr.hasSuffix(
                    "cannot write '\(Excerpt.of(link))': it is a symbolic link, which jwsinspect neither writes "
                        + "through nor replaces (remove it)\n"), "\(result.stderr)")
            #expect(Self.isSymbolicLink(link))
            #expect(try Self.temporaries(in: out).isEmpty)
            try outside.expectUnchanged()
        }
    }

    /// A hard link at a name keeps the content it shares with the file outside: the new file
    /// replaces the name, and gets its own mode.
    @Test func mintCAForceReplacesAHardLinkWithoutWritingIntoIt() throws {
        let outside = try Outside()
        let out = try CLI.temporaryDirectory()
        let key = out.appendingPathComponent("leaf-key.p8")
        try FileManager.default.linkItem(at: outside.victim, to: key)
        let readme = out.appendingPathComponent("README.txt")
        try CLI.write("old\n", to: readme)
        try Self.chmod(readme, 0o600)
        let result = InProcess.run(["mint", "ca", "--out", out.path, "--force"])
        #expect(result.status == 0, "\(result.stderr)")
        try outside.expectUnchanged()
        #expect(try String(contentsOf: key, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try Self.mode(key.path) == 0o600)
        // A file there before gets the mode mint gives it.
        #expect(try Self.mode(readme.path) == 0o644)
        #expect(try String(contentsOf: readme, encoding: .utf8).contains("NOTHING HERE IS APPLE'S"))
    }

    @Test func mintSuiteForceNeverWritesThroughASymbolicLink() throws {
        let clean = try CLI.temporaryDirectory()
        let written = Self.suite(clean, force: false)
        try #require(written.status == 0, "\(written.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: clean.path).sorted()
        let first = try #require(names.first { $0.hasSuffix(".jws") })
        #expect(names.contains("manifest.json"))
        #expect(try Self.temporaries(in: clean).isEmpty)
        for name in [first, "manifest.json"] {
            let outside = try Outside()
            let out = try CLI.temporaryDirectory()
            let link = out.appendingPathComponent(name).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside.victim.path)
            let result = Self.suite(out)
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.contains("mint suite: cannot write '\(Excerpt.of(link))': it is a symbolic link"))
            #expect(Self.isSymbolicLink(link))
            try outside.expectUnchanged()
        }
    }

    @Test func fetchSaveNeverWritesThroughASymbolicLink() throws {
        let harness = try FetchHarness()
        let clean = harness.directory.appendingPathComponent("clean")
        let saved = harness.run(["transaction", Seed.coins, "--save", clean.path])
        try #require(saved.status == 0, "\(saved.stderr)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: clean.path).first)
        #expect(try Self.mode(clean.appendingPathComponent(name).path) == 0o600)
        let outside = try Outside()
        let out = harness.directory.appendingPathComponent("answers")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let link = out.appendingPathComponent(name).path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside.victim.path)
        let result = harness.run(["transaction", Seed.coins, "--save", out.path])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "jwsinspect: --save: cannot write '\(link)': it is a symbolic link, which jwsinspect neither writes "
                    + "through nor replaces (remove it)\n"), "\(result.stderr)")
        #expect(Self.isSymbolicLink(link))
        #expect(try Self.temporaries(in: out).isEmpty)
        try outside.expectUnchanged()
    }

    /// A folder anyone may write in (without the sticky bit) is refused before anything is
    /// written, or asked: another user could swap what is written there.
    @Test func aFolderOthersMayWriteInIsRefused() throws {
        let harness = try FetchHarness()
        let refusal = "anyone may write in it (mode 0777, no sticky bit) and so replace what is written there"
        for command in ["ca", "suite", "fetch"] {
            let out = try CLI.temporaryDirectory()
            try Self.chmod(out, 0o777)
            let result: InProcess.Result
            switch command {
            case "ca": result = InProcess.run(["mint", "ca", "--out", out.path])
            case "suite": result = Self.suite(out, force: false)
            default: result = harness.run(["transaction", Seed.coins, "--save", out.path])
            }
            #expect(result.status == 74, "\(command): \(result.stderr)")
            let shown = command == "fetch" ? out.path : Excerpt.of(out.path)
            let prefix = command == "fetch" ? "--save" : "mint \(command)"
            #expect(
                result.stderr.hasPrefix("jwsinspect: \(prefix): will not write in folder '\(shown)': \(refusal)"),
                "\(command): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "\(command)")
        }
        #expect(harness.production.requests.isEmpty, "no request is made")
        // With the sticky bit (as /tmp has), no one can rename or remove another's file: accepted.
        let sticky = try CLI.temporaryDirectory()
        try Self.chmod(sticky, 0o1777)
        #expect(InProcess.run(["mint", "ca", "--out", sticky.path]).status == 0)
    }

    /// A folder another user owns, or another group may write in, is refused; a folder of the
    /// owner's private group (user private groups, umask 002) is not. Changing a folder's owner
    /// takes root, which the CI runs as.
    @Test func aFolderOfAnotherUserOrGroupIsRefused() throws {
        let owned = try CLI.temporaryDirectory()
        try Self.chmod(owned, 0o770)
        let ownGroup = InProcess.run(["mint", "ca", "--out", owned.path])
        #expect(ownGroup.status == (Self.ownGroupIsPrivate ? 0 : 74), "\(ownGroup.stderr)")
        guard geteuid() == 0 else { return }
        let otherUser = try CLI.temporaryDirectory()
        #expect(chown(otherUser.path, 1, gid_t.max) == 0)
        let refusedUser = InProcess.run(["mint", "ca", "--out", otherUser.path])
        #expect(refusedUser.status == 74)
        #expect(refusedUser.stderr.contains("it belongs to another user (uid 1), who could replace what is written"))
        let otherGroup = try CLI.temporaryDirectory()
        #expect(chown(otherGroup.path, uid_t.max, 1) == 0)
        try Self.chmod(otherGroup, 0o770)
        let refusedGroup = InProcess.run(["mint", "ca", "--out", otherGroup.path])
        #expect(refusedGroup.status == 74)
        #expect(refusedGroup.stderr.contains("its group (gid 1) may write in it (mode 0770)"), "\(refusedGroup.stderr)")
    }

    /// Whether this user's primary group is named after it and lists no one else.
    static var ownGroupIsPrivate: Bool {
        guard let account = getpwuid(geteuid()), let group = getgrgid(getegid()),
            account.pointee.pw_gid == getegid(), strcmp(group.pointee.gr_name, account.pointee.pw_name) == 0
        else { return false }
        var member = group.pointee.gr_mem
        while let name = member?.pointee {
            if strcmp(name, account.pointee.pw_name) != 0 { return false }
            member = member.map { $0 + 1 }
        }
        return true
    }

    /// The folder given may itself be a symbolic link the user made: it is followed.
    @Test func aSymbolicLinkToAFolderGivenAsTheFolderIsFollowed() throws {
        let real = try CLI.temporaryDirectory()
        let link = try CLI.temporaryDirectory().appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: real.path)
        #expect(InProcess.run(["mint", "ca", "--out", link.path, "--force"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: real.appendingPathComponent("root.der").path))
    }

    @Test func aWriteThatFailsIsExit74AndLeavesNothingHalfWritten() throws {
        let out = try CLI.temporaryDirectory()
        try FileManager.default.createDirectory(
            at: out.appendingPathComponent("root.der"), withIntermediateDirectories: false)
        let result = InProcess.run(["mint", "ca", "--out", out.path, "--force"])
        #expect(result.status == 74)
        #expect(result.stderr.hasSuffix("cannot write '\(Excerpt.of(out.path + "/root.der"))': Is a directory\n"))
        #expect(try Self.temporaries(in: out).isEmpty)
        // A write that fails halfway (a file size limit of 0: write(2) fails with EFBIG) leaves the
        // file that was there whole, and no temporary file. Not under ThreadSanitizer (make
        // sanitize sets TSAN_OPTIONS): its runtime dies of the limit (SIGBUS) before jwsinspect runs.
        if ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil {
            try Self.aWriteFailingHalfwayLeavesTheOldFileWhole()
        }
        // A folder this user may not write in (root may write anywhere).
        guard geteuid() != 0 else { return }
        let readOnly = try CLI.temporaryDirectory()
        try Self.chmod(readOnly, 0o500)
        defer { try? Self.chmod(readOnly, 0o700) }
        let denied = InProcess.run(["mint", "ca", "--out", readOnly.path])
        #expect(denied.status == 74 && denied.stderr.contains("Permission denied"), "\(denied.stderr)")
    }

    private static func aWriteFailingHalfwayLeavesTheOldFileWhole() throws {
        let limited = try CLI.temporaryDirectory()
        let old = limited.appendingPathComponent("root.der")
        try CLI.write("old\n", to: old)
        let script = "trap '' XFSZ; ulimit -f 0; exec \"$0\" mint ca --out \"$1\" --force"
        let tooLarge = try CLI.runProgram("/bin/sh", ["-c", script, CLI.executable.path, limited.path])
        #expect(tooLarge.status == 74, "\(tooLarge.stderr)")
        #expect(tooLarge.stderr == "jwsinspect: mint ca: cannot write '\(Excerpt.of(old.path))': File too large\n")
        #expect(try String(contentsOf: old, encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: limited.path) == ["root.der"])
    }
}
