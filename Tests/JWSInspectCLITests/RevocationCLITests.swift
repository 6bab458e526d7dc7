import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private typealias Seed = MockAppStoreServer.Seed

/// `--check-revocation` as users run it: the built executable against real `openssl ocsp`
/// responders on loopback, exit statuses 0, 2 and 75, the cache folder, fetch, and the
/// `mint ca --ocsp-url` recipe the README shows.
@Suite(.timeLimit(.minutes(10)), .ocspResponders) struct RevocationCLITests {
    static let folder: URL = {
        // swiftlint:disable:next force_try
        let folder = try! CLI.temporaryDirectory()
        return folder
    }()
    static var pki: OCSPTestPKI { OCSPResponders.pki }
    static var root: String { pki.rootPath }

    static func token(_ chain: OCSPTestPKI.Case, in folder: URL = folder, pki: OCSPTestPKI = pki) throws -> String {
        let path = folder.appendingPathComponent("\(chain.rawValue)-\(UUID().uuidString).txt").path
        try Data(pki.token(chain).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func revocationCheck(_ result: CLI.Result) throws -> [String: Any]? {
        let record = try #require(try result.jsonObjects().first)
        let checks = record["checks"] as? [[String: Any]] ?? []
        return checks.first { $0["name"] as? String == "revocation" }
    }

    @Test(arguments: [
        (OCSPTestPKI.Case.good, Int32(0), "valid"),
        (.revokedLeaf, 2, "invalid-chain"),
        (.revokedIntermediate, 2, "invalid-chain"),
        (.unknown, 75, "revocation-unavailable"),
        (.wrongKey, 75, "revocation-unavailable"),
        (.down, 75, "revocation-unavailable"),
        // Hangs up at once: a reset connection.
        (.hangingUp, 75, "revocation-unavailable"),
    ])
    func eachAnswerHasItsExitStatus(chain: OCSPTestPKI.Case, status: Int32, name: String) throws {
        let result = try CLI.run(
            ["--root", Self.root, "--check-revocation", "--timeout", "1", "--format", "jsonl", try Self.token(chain)])
        #expect(result.status == status, "\(result.stdout)\(result.stderr)")
        let record = try #require(try result.jsonObjects().first)
        #expect(record["status"] as? String == name)
        #expect(try Self.revocationCheck(result) != nil)
    }

    /// Issue 48: a refused connection is an answer. The check fails at once, unavailable (exit
    /// 75), saying who refused, instead of trying to connect again every 100 ms until `--timeout`
    /// (5.7 s for `--timeout 5`, said as "no connection within 5 s").
    @Test func aRefusedConnectionFailsAtOnce() throws {
        let result = try CLI.run(
            ["--root", Self.root, "--check-revocation", "--timeout", "10", "--format", "jsonl", try Self.token(.down)],
            timeout: 60)
        #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
        let record = try #require(try result.jsonObjects().first)
        #expect(record["status"] as? String == "revocation-unavailable")
        let detail = try Self.revocationCheck(result)?["detail"] as? String ?? ""
        #expect(detail.contains(": the connection was refused by 127.0.0.1:"), "\(detail)")
        // Said as a refusal, never as the timeout that trying again until --timeout would end in.
        #expect(!detail.contains("no connection within"), "\(detail)")
    }

    /// Through the proxy `http_proxy` names, as `openssl ocsp` goes (the request line carries the
    /// responder's absolute URL): a proxy that refuses is named as the proxy, at once.
    @Test func theProxyHTTPProxyNamesIsUsed() throws {
        let proxy = LoopbackPort.refusing()
        let refused = try CLI.run(
            ["--root", Self.root, "--check-revocation", "--timeout", "10", "--format", "jsonl", try Self.token(.good)],
            timeout: 60, environment: ["http_proxy": proxy.url, "no_proxy": ""])
        #expect(refused.status == 75, "\(refused.stdout)\(refused.stderr)")
        let detail = try Self.revocationCheck(refused)?["detail"] as? String ?? ""
        #expect(detail.contains("the connection was refused by the proxy 127.0.0.1:"), "\(detail)")
    }

    /// Without the option nothing is asked: a responder that would hang is never reached.
    @Test func withoutTheOptionNothingIsAsked() throws {
        let result = try CLI.run(["--root", Self.root, "--format", "jsonl", try Self.token(.hanging)], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.revocationCheck(result) == nil)
    }

    @Test func aCertificateWithoutAResponderFailsOnlyWhenACheckIsRequired() throws {
        let token = try Self.token(.noResponder)
        let noted = try CLI.run(["--root", Self.root, "--check-revocation", token])
        #expect(noted.status == 0, "\(noted.stdout)")
        #expect(noted.stdout.contains("names no OCSP responder: its revocation was not checked"))
        let required = try CLI.run(["--root", Self.root, "--require-revocation-check", "--brief", token])
        #expect(required.status == 2)
    }

    /// A run of many tokens asks once per certificate; a tables run says when it was asked.
    @Test func tablesSayWhatWasAskedAndWhen() throws {
        let result = try CLI.run(["--root", Self.root, "--check-revocation", try Self.token(.revokedLeaf)])
        #expect(result.status == 2)
        #expect(result.stdout.contains("the leaf \"jwsinspect OCSP test leaf 4\" was revoked "))
        #expect(result.stdout.contains("(keyCompromise), says \(Self.pki.leafResponder.url), asked now ("))
    }

    @Test func revocationOptionsNeedTheCheck() throws {
        for arguments in [
            ["--revocation-cache", Self.folder.path], ["--timeout", "5"], ["--check-revocation", "--no-verify"],
            ["--check-revocation", "--timeout", "0"],
        ] {
            let result = try CLI.run(["--root", Self.root] + arguments + [try Self.token(.good)])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
        }
    }

    /// Signed answers are kept in the folder (readable by their owner only) and serve a later
    /// run when the responders are gone; a symbolic link in the folder is never written through.
    @Test func theCacheServesLaterRunsWhenTheRespondersAreGone() throws {
        let folder = try CLI.temporaryDirectory()
        let pki = try OCSPTestPKI(folder: folder)
        let root = folder.appendingPathComponent("root.der").path
        _ = FileManager.default.createFile(atPath: root, contents: Data(pki.root.der))
        let cache = folder.appendingPathComponent("cache/ocsp").path
        let token = try Self.token(.good, in: folder, pki: pki)
        let arguments = ["--root", root, "--check-revocation", "--timeout", "1", "--format", "jsonl", token]
        let first = try CLI.run(arguments + ["--revocation-cache", cache])
        #expect(first.status == 0, "\(first.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
        #expect(files.count == 2 && files.allSatisfy { $0.hasSuffix(".ocsp") }, "\(files)")
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: cache + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        pki.leafResponder.stop()
        pki.intermediateResponder.stop()
        let cached = try CLI.run(arguments + ["--revocation-cache", cache])
        #expect(cached.status == 0, "\(cached.stdout)")
        let detail = try Self.revocationCheck(cached)?["detail"] as? String ?? ""
        #expect(detail.contains(", kept in the cache, thisUpdate "), "\(detail)")
        // Without the cache the responders are asked, and are gone.
        #expect(try CLI.run(arguments).status == 75)
        // A kept answer replaced by a symbolic link is not believed, and nothing is written through it.
        let victim = folder.appendingPathComponent("victim").path
        _ = FileManager.default.createFile(atPath: victim, contents: Data("untouched".utf8))
        try FileManager.default.removeItem(atPath: cache + "/" + files[0])
        try FileManager.default.createSymbolicLink(atPath: cache + "/" + files[0], withDestinationPath: victim)
        let linked = try CLI.run(arguments + ["--revocation-cache", cache])
        #expect(linked.status == 75)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
    }

    /// Issue 48: a FIFO and a symbolic link at the names a run reads (the entry names are
    /// predictable) are misses, said in one warning line: the run neither blocks on the FIFO (it
    /// did, forever, past `--timeout`) nor follows the link to an answer someone put there, asks
    /// the responders instead, and leaves both where they are.
    @Test func anEntryThatIsNotARegularFileIsAMiss() throws {
        let folder = try CLI.temporaryDirectory()
        let cache = folder.appendingPathComponent("cache").path
        let arguments = [
            "--root", Self.root, "--check-revocation", "--timeout", "2", "--format", "jsonl",
            try Self.token(.good, in: folder), "--revocation-cache", cache,
        ]
        #expect(try CLI.run(arguments).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
        try #require(files.count == 2, "\(files)")
        let fifo = cache + "/" + files[0]
        let link = cache + "/" + files[1]
        // The link leads to a kept answer: followed, it would be believed.
        let elsewhere = folder.appendingPathComponent("elsewhere.ocsp").path
        try FileManager.default.moveItem(atPath: link, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        try FileManager.default.removeItem(atPath: fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        let started = Date()
        let result = try CLI.run(arguments, timeout: 60)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let detail = try Self.revocationCheck(result)?["detail"] as? String ?? ""
        #expect(!detail.contains("kept in the cache"), "\(detail)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("--revocation-cache") }
        #expect(warnings.count == 1, "\(result.stderr)")
        let warning = String(warnings.first ?? "")
        #expect(warning.hasPrefix("jwsinspect: warning: --revocation-cache \(cache): \(cache)/"), "\(warning)")
        #expect(
            warning.contains(".ocsp: not read, asked again: it is a FIFO (named pipe), not a regular file")
                || warning.contains(".ocsp: not read, asked again: it is a symbolic link, which is not followed"),
            "\(warning)")
        // Both left there, as they were.
        let kinds = [fifo, link].map { path in
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
        }
        #expect(kinds == [S_IFIFO, S_IFLNK])
    }

    /// fetch verifies the API's JWS with the same check: a revoked signing certificate fails.
    @Test(arguments: [(OCSPTestPKI.Case.good, Int32(0)), (.revokedLeaf, 2)])
    func fetchChecksTheAnswersJWS(chain: OCSPTestPKI.Case, status: Int32) throws {
        let key = MockAPIKey()
        let folder = try CLI.temporaryDirectory()
        let keyPath = try key.writeKeyFile(in: folder)
        let signing = try #require(Self.pki.chains[chain])
        let production = try MockAppStoreServer(
            environment: "Production", credentials: key.credentials, now: Date(), chain: signing)
        let sandbox = try MockAppStoreServer(
            environment: "Sandbox", credentials: key.credentials, now: Date(), chain: signing, seed: false)
        defer {
            production.stop()
            sandbox.stop()
        }
        let result = try CLI.run([
            "fetch", "transaction", Seed.subscriptionRenewal2, "--check-revocation", "--format", "jsonl", "--key",
            keyPath, "--issuer-id", key.issuerID, "--bundle-id", key.bundleID, "--production-url",
            production.baseURL, "--sandbox-url", sandbox.baseURL, "--root", Self.root,
        ])
        #expect(result.status == status, "\(result.stdout)\(result.stderr)")
        let records = FetchHarness.records(result.stdout).filter { $0["type"] as? String != "apiResponse" }
        #expect(!records.isEmpty)
        for record in records {
            let checks = record["checks"] as? [[String: Any]] ?? []
            #expect(checks.contains { $0["name"] as? String == "revocation" }, "\(record)")
        }
    }

    /// The README's recipe: `mint ca --ocsp-url`, two `openssl ocsp` from the folder's own files
    /// and README, a minted token checked, then its leaf revoked.
    @Test func mintCAWritesAResponderRecipeThatWorks() throws {
        let folder = try CLI.temporaryDirectory().appendingPathComponent("ca")
        let ports = [LoopbackPort.freePort(), LoopbackPort.freePort()]
        let urls = ports.map { "http://127.0.0.1:\($0)/" }
        let minted = try CLI.run([
            "mint", "ca", "--out", folder.path, "--ocsp-url", urls[0], "--intermediate-ocsp-url", urls[1],
        ])
        #expect(minted.status == 0, "\(minted.stderr)")
        let readme = try String(contentsOf: folder.appendingPathComponent("README.txt"), encoding: .utf8)
        #expect(readme.contains("-port \(ports[0]) -CA intermediate.der"))
        #expect(readme.contains("-port \(ports[1]) -CA root.der"))
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let leafResponder = try OCSPResponder(openssl: [
            "ocsp", "-index", path("ocsp-leaf-index.txt"), "-port", String(ports[0]), "-CA", path("intermediate.der"),
            "-rsigner", path("intermediate.der"), "-rkey", path("intermediate-key.p8"), "-ndays", "1",
        ])
        let intermediateResponder = try OCSPResponder(openssl: [
            "ocsp", "-index", path("ocsp-intermediate-index.txt"), "-port", String(ports[1]), "-CA", path("root.der"),
            "-rsigner", path("root.der"), "-rkey", path("root-key.p8"), "-ndays", "1",
        ])
        defer { intermediateResponder.stop() }
        let token = try CLI.run(["mint", "transaction", "--ca", folder.path])
        let tokenPath = path("token.txt")
        try Data(token.stdout.utf8).write(to: URL(fileURLWithPath: tokenPath))
        let good = try CLI.run(["--root", path("root.der"), "--check-revocation", "--format", "jsonl", tokenPath])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        let detail = try Self.revocationCheck(good)?["detail"] as? String ?? ""
        #expect(detail.contains(urls[0]) && detail.contains(urls[1]), "\(detail)")
        // Revoke the leaf as the README says, and restart its responder.
        leafResponder.stop()
        let index = try String(contentsOfFile: path("ocsp-leaf-index.txt"), encoding: .utf8)
        let revoked = index.replacingOccurrences(
            of: "V\t391231235959Z\t\t", with: "R\t391231235959Z\t261201000000Z,keyCompromise\t")
        try Data(revoked.utf8).write(to: URL(fileURLWithPath: path("ocsp-leaf-index.txt")))
        let restarted = try OCSPResponder(openssl: [
            "ocsp", "-index", path("ocsp-leaf-index.txt"), "-port", String(ports[0]), "-CA", path("intermediate.der"),
            "-rsigner", path("intermediate.der"), "-rkey", path("intermediate-key.p8"), "-ndays", "1",
        ])
        defer { restarted.stop() }
        let refused = try CLI.run(["--root", path("root.der"), "--check-revocation", tokenPath])
        #expect(refused.status == 2, "\(refused.stdout)")
        #expect(refused.stdout.contains("was revoked 2026-12-01T00:00:00.000Z (keyCompromise)"))
        // A URL OpenSSL's configuration would misread is refused.
        let bad = try CLI.run(["mint", "ca", "--out", folder.path + "2", "--ocsp-url", "http://a,caIssuers;URI:x"])
        #expect(bad.status == 64)
    }
}
