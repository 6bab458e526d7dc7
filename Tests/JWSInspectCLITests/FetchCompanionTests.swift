import Foundation
import Testing

private typealias Seed = MockAppStoreServer.Seed

/// `jwsinspect` links no network library; `jwsinspect fetch` runs `jwsinspect-fetch`, found
/// beside it, in its place (same arguments, streams and exit status), and says how to get
/// it when it is not there.
@Suite("fetch: the companion program", .timeLimit(.minutes(10)))
struct FetchCompanionTests {
    /// The companion the build put beside the executable under test.
    static var companion: URL {
        CLI.executable.deletingLastPathComponent().appendingPathComponent("jwsinspect-fetch")
    }

    /// The shared objects `ldd` names for `binary` (one line each).
    static func linked(_ binary: URL) throws -> String {
        let result = try CLI.runProgram("/usr/bin/env", ["ldd", binary.path])
        try #require(result.status == 0, "ldd failed: \(result.stderr)")
        return result.stdout
    }

    @Test("jwsinspect links no network library; jwsinspect-fetch links FoundationNetworking and libcurl")
    func onlyTheCompanionLinksTheNetwork() throws {
        let offline = try Self.linked(CLI.executable)
        #expect(offline.contains("libcrypto"), "ldd shows no libcrypto: \(offline)")
        for library in [
            "libcurl", "FoundationNetworking", "libgnutls", "libkrb5", "libldap", "libnghttp2", "libmicrohttpd",
        ] {
            #expect(!offline.contains(library), "jwsinspect links \(library):\n\(offline)")
        }
        // Not vacuous: the same check on the companion finds what it links.
        let online = try Self.linked(Self.companion)
        #expect(online.contains("libcurl"), "jwsinspect-fetch shows no libcurl: \(online)")
        #if JWSINSPECT_LISTEN
            #expect(online.contains("libmicrohttpd"), "jwsinspect-fetch shows no libmicrohttpd: \(online)")
        #endif
    }

    @Test("jwsinspect ships mint's AppStoreTestData and none of the test suites' TestPKI")
    func onlyTheShippedTestDataIsInTheBinary() throws {
        let binary = try Data(contentsOf: CLI.executable)
        // Swift mangles a module name as its length and the name: every symbol of a module
        // carries it.
        #expect(binary.range(of: Data("16AppStoreTestData".utf8)) != nil, "not vacuous: mint's module is found")
        #expect(binary.range(of: Data("7TestPKI".utf8)) == nil, "jwsinspect carries TestPKI's symbols")
    }

    @Test("jwsinspect fetch runs jwsinspect-fetch: the same records, stderr and exit status as in this process")
    func fetchRunsTheCompanion() throws {
        let harness = try FetchHarness()
        let arguments = harness.credentials + harness.endpoints
        // In this process first, at the mock's time; then as a process, at this machine's time.
        let inProcess = harness.run(["transaction", Seed.subscriptionRenewal2, "--format", "jsonl"])
        let unknownInProcess = harness.run(["order", Seed.unknownOrder, "-q"])
        let behind = Date().timeIntervalSince(harness.production.now)
        harness.production.clockOffset = .milliseconds(Int64(behind * 1000))
        let found = try CLI.run(
            ["fetch", "transaction", Seed.subscriptionRenewal2, "--format", "jsonl", "--at", "2025-06-01T00:00:00Z"]
                + arguments)
        #expect(found.status == 0, "\(found.stderr)")
        let records = FetchHarness.records(found.stdout)
        let expected = FetchHarness.records(inProcess.stdout)
        #expect(records.count == 2 && records.count == expected.count)
        for (record, expected) in zip(records, expected) {
            #expect(record["status"] as? String == expected["status"] as? String)
            // The mock signs as it answers: a JWS's payload is the same but for signedDate.
            var payload = record["payload"] as? [String: Any] ?? [:]
            var same = expected["payload"] as? [String: Any] ?? [:]
            payload["signedDate"] = nil
            same["signedDate"] = nil
            #expect(NSDictionary(dictionary: payload).isEqual(to: same), "\(payload) is not \(same)")
        }
        // A failure: the companion's exit status and message reach the caller unchanged.
        let unknown = try CLI.run(["fetch", "order", Seed.unknownOrder, "-q"] + arguments)
        #expect(unknown.status == 8)
        #expect(unknown.status == unknownInProcess.status)
        #expect(unknown.stderr == unknownInProcess.stderr)
        // Run directly, the companion takes fetch's arguments.
        let direct = try CLI.runProgram(Self.companion.path, ["order", Seed.unknownOrder, "-q"] + arguments)
        #expect(direct.status == 8 && direct.stderr == unknown.stderr)
    }

    @Test("without jwsinspect-fetch beside it, fetch says where it belongs and exits 127; help still answers")
    func companionMissing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lone = folder.appendingPathComponent("jwsinspect")
        try FileManager.default.copyItem(at: CLI.executable, to: lone)
        let arguments = [
            "fetch", "transaction", "1", "--key", "/dev/null", "--issuer-id", MockAPIKey.defaultIssuerID,
            "--bundle-id", "com.example",
        ]
        let missing = try CLI.runProgram(lone.path, arguments)
        #expect(missing.status == 127)
        #expect(missing.stdout.isEmpty)
        #expect(
            missing.stderr
                == "jwsinspect: fetch: jwsinspect-fetch, the program that sends fetch's requests, is not installed "
                + "beside jwsinspect (\(folder.resolvingSymlinksInPath().path)/jwsinspect-fetch): jwsinspect links "
                + "no network library; install both from jwsinspect's source with 'make install'\n")
        let help = try CLI.runProgram(lone.path, ["fetch", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("jwsinspect fetch"))
        let usage = try CLI.runProgram(lone.path, ["fetch", "--bogus"])
        #expect(usage.status == 64)
        // A companion that is there but cannot run is reported, with the same status.
        let broken = folder.appendingPathComponent("jwsinspect-fetch")
        try Data("#!/nonexistent/interpreter\n".utf8).write(to: broken)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: broken.path)
        let cannotRun = try CLI.runProgram(lone.path, arguments)
        #expect(cannotRun.status == 127)
        #expect(
            cannotRun.stderr.hasPrefix(
                "jwsinspect: fetch: cannot run \(folder.resolvingSymlinksInPath().path)/jwsinspect-fetch: "))
    }
}
