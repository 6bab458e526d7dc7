import Foundation
import JWSInspectCore
import TestSupport
import Testing

@testable import AppStoreServerAPI
@testable import AppStoreServerHTTP
@testable import JWSInspectCLI

private typealias Seed = MockAppStoreServer.Seed

/// `jwsinspect fetch` against servers that do not answer as Apple does: redirects, bodies that
/// inflate past the limit, pages that never end or do not say how to go on, a body that drips,
/// a certificate no system trusts, hosts that only look like loopback. Each against a real server
/// on a loopback port.
@Suite("fetch: a hostile or broken server", .timeLimit(.minutes(10)))
struct FetchHostileServerTests {
    /// A plain HTTP server on another port that records every request it gets: where a redirect
    /// points.
    final class Target: Sendable {
        let requests = JWSInspectCore.Locked<[MockHTTPServer.Request]>([])
        let server: MockHTTPServer

        init() throws {
            let requests = self.requests
            server = try MockHTTPServer(clock: { InProcess.now }) { request in
                requests.withLock { $0.append(request) }
                return .respond(
                    .init(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}".utf8)))
            }
        }

        deinit {
            server.stop()
        }
    }

    /// A genuine `signedTransactionInfo` of the seeded coins purchase, as the mock signs it.
    static func signedCoins(_ harness: FetchHarness) throws -> String {
        let coins = try #require(harness.production.transaction(Seed.coins))
        return harness.production.backend.minter.transaction(coins, appTransactionID: nil, signedDate: InProcess.now)
    }

    @Test(
        "a redirect is refused (69, naming where it pointed), not retried, and its target sees no request",
        arguments: [
            (301, "transaction", "GET"), (302, "transaction", "GET"), (303, "notifications", "POST"),
            (307, "notifications", "POST"), (308, "transaction", "GET"),
        ])
    func redirectRefused(_ status: Int, _ kind: String, _ method: String) throws {
        let harness = try FetchHarness()
        let target = try Target()
        // Another host (localhost, not 127.0.0.1), another port, plain http.
        let location = "http://localhost:\(target.server.port)/inApps/v1/collect"
        let prefix = kind == "transaction" ? "/inApps/v1/transactions/" : "/inApps/v1/notifications/history"
        harness.production.enqueue(
            .status(status, headers: ["Location": location], body: "moved"), forPathPrefix: prefix, method: method)
        let arguments = kind == "transaction" ? [kind, Seed.coins] : [kind, "--since", "2025-05-01"]
        let result = harness.run(arguments + ["--environment", "Production", "--format", "jsonl"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "unusable answer: HTTP \(status) redirecting to '\(location)': the App Store Server API never "
                    + "redirects, so the request and its bearer token were not sent on"), "\(result.stderr)")
        let record = try #require(FetchHarness.records(result.stdout).last)
        #expect(record["status"] as? String == "malformed")
        #expect(harness.production.requests.count == 1)
        #expect(target.requests.withLock { $0.isEmpty })
    }

    @Test("a relative redirect (to the same server) is refused too: the server is asked once")
    func relativeRedirectRefused() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(
            .status(302, headers: ["Location": "/inApps/v1/transactions/\(Seed.lifetime)"], body: ""),
            forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "--environment", "Production"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("HTTP 302 redirecting to '/inApps/v1/transactions/\(Seed.lifetime)'"))
        #expect(harness.production.requests.count == 1)
    }

    /// `gzip -c -n` of `count` zero bytes, run at test time.
    static func gzipZeros(_ count: Int, in directory: URL) throws -> [UInt8] {
        let input = directory.appendingPathComponent("zeros-\(count)")
        try Data(count: count).write(to: input)
        return try gzip(input)
    }

    static func gzip(_ file: URL) throws -> [UInt8] {
        let result = try ChildProcess.run("gzip", ["-c", "-n", file.path])
        #expect(result.status == 0)
        return result.stdout
    }

    /// `jwsinspect fetch ARGUMENTS` as a process, against `harness`'s servers: a refused answer
    /// stops libcurl for the rest of the program (`URLSessionTransport`), so not in this one.
    static func runCompanion(_ harness: FetchHarness, _ arguments: [String]) throws -> (CLI.Result, Duration) {
        // The process signs its bearer tokens at this machine's time: the mock follows it meanwhile.
        let behind = Date().timeIntervalSince(harness.production.now)
        harness.production.clockOffset = .milliseconds(Int64(behind * 1000))
        defer { harness.production.clockOffset = .zero }
        let start = ContinuousClock.now
        let result = try CLI.run(["fetch"] + arguments + harness.credentials + harness.endpoints, timeout: 120)
        return (result, ContinuousClock.now - start)
    }

    @Test("a gzip body is read after decoding: 17 MiB from a few KB is refused at 16 MiB (69); a small one is read")
    func gzipBomb() throws {
        let harness = try FetchHarness()
        let bomb = try Self.gzipZeros(17 << 20, in: harness.directory)
        #expect(bomb.count < 100_000)
        harness.production.enqueue(
            .bytes(200, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: bomb),
            forPathPrefix: "/inApps/v1/transactions/")
        let (result, _) = try Self.runCompanion(harness, ["transaction", Seed.coins, "--environment", "Production"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "unusable answer: the answer is over 16 MiB (after decoding its Content-Encoding), more than any App "
                    + "Store Server API answer; the transfer was stopped there"), "\(result.stderr)")
        #expect(harness.production.requests.count == 1)

        // A gzip answer within the limit is decoded and verified as any other; gzip alone is asked for.
        let body = harness.directory.appendingPathComponent("answer.json")
        try Data(#"{"signedTransactionInfo":"\#(try Self.signedCoins(harness))"}"#.utf8).write(to: body)
        harness.production.enqueue(
            .bytes(
                200, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
                body: try Self.gzip(body)
            ), forPathPrefix: "/inApps/v1/transactions/")
        let small = harness.run(["transaction", Seed.coins, "--environment", "Production", "--format", "jsonl"])
        #expect(small.status == 0, "\(small.stderr)")
        #expect(FetchHarness.records(small.stdout).last?["status"] as? String == "valid")
        #expect(
            harness.production.requests.last?.headers.filter({ $0.name.lowercased() == "accept-encoding" }).map(\.value)
                == ["gzip"])
    }

    /// libcurl decodes every coding it knows, layer after layer (up to five), before jwsinspect
    /// sees a byte: `gzip, gzip` turns 33 KB into 20 GiB in one call (65 s and 469 MB at
    /// `--timeout 2` before issue 48). Refused when the headers arrive, never retried.
    @Test(
        "a Content-Encoding of more than one layer, or not the gzip asked for, is refused unread (69), not retried",
        arguments: [
            (["Content-Encoding": "gzip, gzip"], Self.layered("gzip, gzip")),
            (["Content-Encoding": "gzip,gzip"], Self.layered("gzip,gzip")),
            (["Content-Encoding": "GZIP, identity, gzip"], Self.layered("GZIP, identity, gzip")),
            // Foundation keeps one of two lines whose names differ in case, and libcurl stacks
            // both: the bound on what is kept stops it.
            (["Content-Encoding": "gzip", "content-encoding": "gzip"], Self.overLimit),
            (["Content-Encoding": "deflate"], Self.unasked("deflate")),
            (["Content-Encoding": "br"], Self.unasked("br")),
            (["Content-Encoding": "zstd"], Self.unasked("zstd")),
            (["Content-Encoding": "x-gzip"], Self.unasked("x-gzip")),
        ])
    func contentEncodingRefused(_ encoding: [String: String], _ message: String) throws {
        let harness = try FetchHarness()
        // Two layers of gzip over 17 MiB of zeros: without the refusal, libcurl inflates both and
        // the 16 MiB bound answers instead.
        let inner = harness.directory.appendingPathComponent("inner.gz")
        try Data(try Self.gzipZeros(17 << 20, in: harness.directory)).write(to: inner)
        let body = try Self.gzip(inner)
        harness.production.enqueue(
            .bytes(200, headers: encoding.merging(["Content-Type": "application/json"]) { a, _ in a }, body: body),
            forPathPrefix: "/inApps/v1/transactions/")
        let (result, _) = try Self.runCompanion(
            harness,
            ["transaction", Seed.coins, "--environment", "Production", "--timeout", "5", "--retries", "3", "-q"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("unusable answer: \(message)"), "\(result.stderr)")
        // Refused once, not retried (the message says which bound answered, so not a timing).
        #expect(harness.production.requests.count == 1)
    }

    static func layered(_ named: String) -> String {
        "the answer's Content-Encoding is '\(named)', 2 layers, where at most one (gzip, as asked) is decoded; "
            + "refused before any of its body was decoded"
    }

    static func unasked(_ named: String) -> String {
        "the answer's Content-Encoding is '\(named)', not the gzip asked for (Accept-Encoding: gzip); refused "
            + "before any of its body was decoded"
    }

    static let overLimit =
        "the answer is over 16 MiB (after decoding its Content-Encoding), more than any App Store Server API answer; "
        + "the transfer was stopped there"

    @Test(
        "no Content-Encoding, identity, or one gzip in any case is read",
        arguments: [[], ["identity"], ["gzip"], [" GZIP "], ["gzip, identity"], ["identity", "gzip"], [""]])
    func contentEncodingRead(_ values: [String]) {
        #expect(URLSessionTransport.encodingRefusal(values) == nil)
    }

    @Test(
        "hasMore that is not false, without a usable page token, is a malformed answer (69), not a history cut short",
        arguments: [
            (#""hasMore":true"#, "page 1: hasMore is true with no revision to ask for the next page"),
            (#""hasMore":true,"revision":"""#, "page 1: hasMore is true with an empty revision"),
            (#""hasMore":true,"revision":7"#, "page 1: hasMore is true with a number as revision"),
            (#""hasMore":"false","revision":"r1""#, "page 1: hasMore is a string, not true or false"),
            (#""revision":"r1""#, "page 1: the answer has no hasMore, so whether pages follow is unknown"),
        ])
    func hasMoreWithoutToken(_ members: String, _ message: String) throws {
        let harness = try FetchHarness()
        let body = #"{\#(members),"bundleId":"com.example","signedTransactions":["\#(try Self.signedCoins(harness))"]}"#
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: body),
            forPathPrefix: "/inApps/v2/history/")
        let result = harness.run(["history", Seed.coins, "--environment", "Production", "--format", "jsonl"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("unusable answer: \(message)"), "\(result.stderr)")
        // The page that came is shown and verified; the failure record comes last.
        let records = FetchHarness.records(result.stdout)
        #expect(records.map { $0["status"] as? String } == ["answered", "valid", "malformed"])
        #expect(harness.production.answerRequests.count == 1)
    }

    @Test("notifications: hasMore true without a paginationToken is malformed too")
    func notificationsWithoutToken() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(
            .status(
                200, headers: ["Content-Type": "application/json"], body: #"{"hasMore":true,"notificationHistory":[]}"#),
            forPathPrefix: "/inApps/v1/notifications/history")
        let result = harness.run(["notifications", "--since", "2025-05-01", "--environment", "Production"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("page 1: hasMore is true with no paginationToken to ask for the next page"))
    }

    @Test("a page token over 4096 bytes is refused, never sent; tokens of 4096 bytes go back whole, page after page")
    func pageTokenBound() throws {
        let harness = try FetchHarness()
        let signed = try Self.signedCoins(harness)
        func page(_ revision: String, more: Bool) -> MockReply {
            .status(
                200, headers: ["Content-Type": "application/json"],
                body: #"{"revision":"\#(revision)","hasMore":\#(more),"signedTransactions":["\#(signed)"]}"#)
        }
        let long = String(repeating: "r", count: FetchRequest.pageTokenLimit + 1)
        harness.production.enqueue(page(long, more: true), forPathPrefix: "/inApps/v2/history/")
        let refused = harness.run(["history", Seed.coins, "--environment", "Production", "-q"])
        #expect(refused.status == 69)
        #expect(refused.stderr.contains("page 1: its revision is 4097 bytes, over the 4096 a page token may be"))
        #expect(harness.production.answerRequests.count == 1)

        let tokens = ["a", "b", "c"].map { String(repeating: $0, count: FetchRequest.pageTokenLimit) }
        for (index, token) in tokens.enumerated() {
            harness.production.enqueue(page(token, more: index < 2), forPathPrefix: "/inApps/v2/history/")
        }
        let paged = harness.run(["history", Seed.coins, "--environment", "Production", "-q"])
        #expect(paged.status == 0, "\(paged.stderr)")
        let sent = harness.production.answerRequests.dropFirst().map { $0.queryValues("revision") }
        #expect(sent == [[], [tokens[0]], [tokens[1]]])
    }

    @Test("--timeout bounds the whole request: a body that drips a byte a second ends at the timeout")
    func dripTimesOut() throws {
        let harness = try FetchHarness()
        let body = #"{"signedTransactionInfo":"# + String(repeating: " ", count: 60) + "}"
        harness.production.enqueue(
            .drip(200, headers: ["Content-Type": "application/json"], body: body, every: .seconds(1)),
            forPathPrefix: "/inApps/v1/transactions/")
        let start = ContinuousClock.now
        let result = harness.run([
            "transaction", Seed.coins, "--environment", "Production", "--timeout", "2", "--retries", "0",
        ])
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 75)
        #expect(result.stderr.contains("try again later: \(harness.production.baseURL): no complete answer within 2 s"))
        // The drip would take 70 s; 10 s leaves room for a loaded machine.
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }

    @Test("a TLS certificate no system trusts: 69 at once, naming the problem and what to check, never retried")
    func untrustedCertificate() throws {
        let harness = try FetchHarness()
        let server = try MockTLSServer()
        defer { server.stop() }
        let result = InProcess.run(
            ["fetch", "transaction", Seed.coins, "--environment", "Production", "--production-url", server.baseURL]
                + harness.credentials + ["--root", harness.rootPath, "--format", "jsonl"], stdin: nil,
            stderrIsTerminal: true)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "TLS refused: \(server.baseURL): the server's TLS certificate is not trusted (SSL certificate problem: "
                    + "self-signed certificate); not retried"), "\(result.stderr)")
        #expect(result.stderr.contains("check --production-url, and that this system's CA store (/etc/ssl/certs)"))
        // A terminal would show each retry's wait: there is none.
        #expect(!result.stderr.contains("retry 1 of"))
        let record = try #require(FetchHarness.records(result.stdout).last)
        #expect(record["status"] as? String == "untrusted-certificate")
    }

    @Test(
        "plain http only to a loopback address as libcurl reads it: other spellings are refused (64), no request",
        arguments: [
            "http://127.0.0.099", "http://127.1", "http://0x7f.0.0.1", "http://2130706433", "http://0177.0.0.1",
            "http://127.0.0.1.", "http://localhost.", "http://127.0.0.1%2e", "http://[0:0:0:0:0:0:0:1]",
            "http://[::ffff:127.0.0.1]", "http://[::1%25lo]", "http://127.0.0.1:0", "http://127.0.0.1:70000",
            "http://loca%6Chost",
        ])
    func loopbackSpellings(_ url: String) throws {
        let harness = try FetchHarness()
        let result = InProcess.run(
            ["fetch", "transaction", Seed.coins, "--production-url", url] + harness.credentials, stdin: nil)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("jwsinspect: --production-url: '\(url)'"), "\(result.stderr)")
        #expect(harness.production.requests.isEmpty)
    }

    @Test("subscriptions --require-active: an active subscription passes; the renewal info beside it decides nothing")
    func requireActiveSubscriptions() throws {
        let harness = try FetchHarness()
        let active = harness.run([
            "subscriptions", Seed.subscriptionOriginal, "--status", "1", "--require-active", "--format", "jsonl",
        ])
        #expect(active.status == 0, "\(active.stderr)")
        let records = FetchHarness.records(active.stdout)
        #expect(records.map { $0["status"] as? String } == ["answered", "valid", "valid"])
        #expect(
            (records[2]["source"] as? String)?.hasSuffix("data[0].lastTransactions[0].signedRenewalInfo") == true)

        // With the expired subscription too, its transaction is what fails (6), not a renewal info.
        let both = harness.run(["subscriptions", Seed.subscriptionOriginal, "--require-active", "--format", "jsonl"])
        #expect(both.status == 6)
        let inactive = FetchHarness.records(both.stdout).filter { $0["status"] as? String == "inactive" }
        #expect(
            inactive.compactMap { $0["source"] as? String }.map { $0.split(separator: " ").last } == [
                "data[1].lastTransactions[0].signedTransactionInfo"
            ])
    }

    @Test("a renewal info without its transaction still decides nothing: --require-active fails (6)")
    func renewalInfoAlone() throws {
        let harness = try FetchHarness()
        // Get All Subscription Statuses' real answer, with each signedTransactionInfo removed.
        let folder = harness.directory.appendingPathComponent("saved")
        let plain = harness.run([
            "subscriptions", Seed.subscriptionOriginal, "--status", "1", "--save", folder.path, "-q",
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        let saved = folder.appendingPathComponent("subscriptions-\(Seed.subscriptionOriginal)-Production.json")
        var answer = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: saved)) as? [String: Any])
        var groups = try #require(answer["data"] as? [[String: Any]])
        var last = try #require(groups[0]["lastTransactions"] as? [[String: Any]])
        last[0]["signedTransactionInfo"] = nil
        groups[0]["lastTransactions"] = last
        answer["data"] = groups
        let body = String(decoding: try JSONSerialization.data(withJSONObject: answer), as: UTF8.self)
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: body),
            forPathPrefix: "/inApps/v1/subscriptions/")
        let result = harness.run(["subscriptions", Seed.subscriptionOriginal, "--require-active", "--format", "jsonl"])
        #expect(result.status == 6, "\(result.stderr)")
        let inactive = FetchHarness.records(result.stdout).filter { $0["status"] as? String == "inactive" }
        #expect(inactive.count == 1, "\(result.stdout)")
        #expect(
            (inactive.first?["reason"] as? String)?.contains(
                "not an entitlement: renewal info alone says how a subscription renews")
                == true, "\(inactive)")
    }

    @Test("an answer naming a member twice is malformed (69), naming the member")
    func duplicateMember() throws {
        let harness = try FetchHarness()
        let signed = try Self.signedCoins(harness)
        let body = #"{"signedTransactionInfo":"\#(signed)","signedTransactionInfo":"a.b.c"}"#
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: body),
            forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "--environment", "Production"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains(#"names member "signedTransactionInfo" twice"#), "\(result.stderr)")
    }
}
