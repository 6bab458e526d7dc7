import Foundation
import JWSInspectCore
import Testing

@testable import JWSInspectCLI

private typealias Seed = MockAppStoreServer.Seed

/// `jwsinspect fetch` when the API does not simply answer: rate limits, server errors, a hanging
/// or absent server, bodies that are not JSON, a refused token, and credentials and privacy.
@Suite("fetch: failures, retries, credentials", .timeLimit(.minutes(10)))
struct FetchFailureTests {
    @Test("429 with Retry-After in UNIX milliseconds: the wait is honoured, then the retry succeeds")
    func rateLimited() throws {
        let harness = try FetchHarness()
        // Retry-After is a moment, judged by this machine's clock: the run's clock starts at
        // InProcess.now (the mock's clock started earlier, by the harness's setup), so 3 s after
        // it leaves a wait of 3 s less the run's time to its first answer.
        let retryAfter = Int64(InProcess.now.timeIntervalSince1970 * 1000) + 3000
        harness.production.enqueue(
            .rateLimited(retryAfter: String(retryAfter)), forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let requests = harness.production.requests
        #expect(requests.count == 2 && requests[0].status == 429 && requests[1].status == 200)
        // The retry waited for Retry-After, not a backoff (at most 1 s for the first retry).
        #expect(requests[1].receivedAt.timeIntervalSince(requests[0].receivedAt) >= 1.5)
        // Not a terminal (a CI log): one line per retry, saying what it waits for; -q silences
        // which environment answered.
        #expect(result.stderr.hasPrefix("jwsinspect: fetch: 429 rate limit exceeded; retry 1 of 3 in "))
        #expect(result.stderr.hasSuffix(" s\n") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        let talking = harness.run(["transaction", Seed.coins, "--format", "jsonl"])
        #expect(talking.stderr == "jwsinspect: fetch: answered by Production\n")
    }

    @Test("on a terminal the wait is one progress line, redrawn in place and cleared before output")
    func progressOnTerminal() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(
            .rateLimited(retryAfter: harness.production.retryAfterMilliseconds(fromNow: .milliseconds(200))),
            forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "-q"], stderrIsTerminal: true)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("\r\u{1b}[Kjwsinspect: fetch: 429 rate limit exceeded; retry 1 of 3 in 0."))
        #expect(result.stderr.hasSuffix("…\r\u{1b}[K"), "cleared before anything else; -q says nothing more")
    }

    @Test("500 then success: retried after a backoff; 5xx every time is 'try again later' (75)")
    func serverError() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(.internalError, forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.production.requests.map(\.status) == [500, 200])

        harness.production.enqueue(.internalError, forPathPrefix: "/inApps/v1/transactions/", times: 2)
        let failed = harness.run(["transaction", Seed.coins, "--retries", "1", "--format", "jsonl"])
        #expect(failed.status == 75)
        #expect(failed.stderr.contains("try again later: HTTP 500, errorCode 5000000 GeneralInternalError"))
        let record = try #require(FetchHarness.records(failed.stdout).last)
        #expect(record["status"] as? String == "unavailable" && record["type"] as? String == "apiResponse")
    }

    /// Every `apiResponse` record has the same members, answered or not (issue 50): `httpStatus`,
    /// `errorCode`, `errorMessage` (null when absent, never missing), a sentence `summary`, and
    /// `source` named as an answered page is.
    @Test("failure records carry httpStatus, errorCode, errorMessage and a sentence, as answered ones do")
    func failureRecordsHaveEveryMember() throws {
        let harness = try FetchHarness()
        let page = harness.run(["transaction", Seed.coins, "--format", "jsonl"]).stdout
        let answered = try #require(FetchHarness.records(page).first)
        #expect(answered["errorCode"] is NSNull && answered["errorMessage"] is NSNull)
        #expect(answered["response"] is [String: Any])
        let keys = try Self.keys(of: String(#require(page.split(separator: "\n").first)))
        #expect(keys.isSuperset(of: ["environment", "request", "httpStatus", "errorCode", "errorMessage", "response"]))
        // In this order, after the keys every record has.
        #expect(page.contains(#","environment":"Production","request":"GET /inApps/v1/transactions/"#))
        #expect(page.contains(#","httpStatus":200,"errorCode":null,"errorMessage":null,"response":{"#))

        // 404 errorCode 4040010 in both environments: nothing found.
        let missing = harness.run(["transaction", Seed.unknownTransaction, "--format", "jsonl"])
        #expect(missing.status == 8, "\(missing.stderr)")
        let notFound = try #require(FetchHarness.records(missing.stdout).last)
        #expect(notFound["status"] as? String == "not-found")
        #expect(notFound["httpStatus"] as? Int == 404 && notFound["errorCode"] as? Int == 4_040_010)
        #expect(notFound["errorMessage"] as? String == "Transaction id not found.")
        #expect(notFound["source"] as? String == "fetch transaction \(Seed.unknownTransaction)")
        #expect(notFound["environment"] is NSNull && notFound["request"] is NSNull && notFound["response"] is NSNull)
        #expect(
            notFound["summary"] as? String
                == "Nothing found (HTTP 404, errorCode 4040010 TransactionIdNotFoundError).")
        #expect(try Self.keys(of: missing.stdout) == keys)

        // 500 after the retries: try again later, the last answer's status and code.
        harness.production.enqueue(.internalError, forPathPrefix: "/inApps/v1/transactions/", times: 2)
        let failed = harness.run(["transaction", Seed.coins, "--retries", "1", "--format", "jsonl"])
        #expect(failed.status == 75)
        let unavailable = try #require(FetchHarness.records(failed.stdout).last)
        #expect(unavailable["httpStatus"] as? Int == 500 && unavailable["errorCode"] as? Int == 5_000_000)
        #expect(unavailable["errorMessage"] is String)
        #expect(unavailable["source"] as? String == "fetch transaction \(Seed.coins) (Production)")
        #expect(unavailable["environment"] as? String == "Production")
        #expect((unavailable["request"] as? String)?.hasPrefix("GET /inApps/v1/transactions/") == true)
        #expect(
            unavailable["summary"] as? String
                == "No usable answer yet: try again later (HTTP 500, errorCode 5000000 GeneralInternalError).")
        #expect(try Self.keys(of: failed.stdout) == keys)

        // No answer at all (a connection refused): the members are there, null.
        let closed = try MockHTTPServer.unusedPort()
        let refused = InProcess.run(
            [
                "fetch", "transaction", Seed.coins, "--retries", "0", "--format", "jsonl", "--production-url",
                "http://127.0.0.1:\(closed)",
            ] + harness.credentials + ["--root", harness.rootPath], stdin: nil)
        #expect(refused.status == 75, "\(refused.stderr)")
        let nothing = try #require(FetchHarness.records(refused.stdout).last)
        #expect(nothing["httpStatus"] is NSNull && nothing["errorCode"] is NSNull && nothing["errorMessage"] is NSNull)
        #expect(nothing["summary"] as? String == "No usable answer yet: try again later.")
        #expect(try Self.keys(of: refused.stdout) == keys)
    }

    /// The top-level keys of the last record.
    static func keys(of output: String) throws -> Set<String> {
        let line = try #require(output.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return Set(object.keys)
    }

    @Test("a server that never answers: the timeout ends the request, 75 after the retries")
    func hangingServer() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(.hang, forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "--timeout", "1", "--retries", "0"])
        #expect(result.status == 75)
        #expect(result.stderr.contains("no complete answer within 1 s"))
        #expect(result.stdout.isEmpty)
    }

    @Test("connection refused: 75, naming the URL")
    func connectionRefused() throws {
        let harness = try FetchHarness()
        let port = try MockHTTPServer.unusedPort()
        let result = InProcess.run(
            ["fetch", "transaction", Seed.coins, "--retries", "0", "--production-url", "http://127.0.0.1:\(port)"]
                + harness.credentials + ["--root", harness.rootPath], stdin: nil)
        #expect(result.status == 75)
        #expect(result.stderr.contains("http://127.0.0.1:\(port): connection refused"))
    }

    @Test("a 200 whose body is not JSON: an unusable answer (69), quoted; never verified as input")
    func malformedJSON() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(.malformedJSON, forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", Seed.coins, "--format", "jsonl"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("unusable answer: HTTP 200 with a body that is not JSON: '"))
        let records = FetchHarness.records(result.stdout)
        #expect(records.count == 1 && records[0]["status"] as? String == "malformed")
    }

    @Test("only the members Apple documents as JWS are verified: a revision shaped like a JWS is not")
    func unsignedFieldsAreNotTokens() throws {
        let harness = try FetchHarness()
        let body = #"{"revision":"e92ec1ffbf7b46aca16aaefada1ff788","hasMore":false,"signedTransactions":[42]}"#
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: body),
            forPathPrefix: "/inApps/v2/history/")
        let result = harness.run(["history", Seed.coins, "--format", "jsonl"])
        #expect(result.status == 5)
        let records = FetchHarness.records(result.stdout)
        #expect(records.count == 2)
        #expect(
            records[1]["source"] as? String == "fetch history \(Seed.coins) (Production) page 1: signedTransactions[0]")
        #expect(records[1]["reason"] as? String == "not a JWS: a number where a signed value belongs")
    }

    @Test("a refused token (401): exit 77, with what the token carried and Production's first-release rule")
    func unauthorized() throws {
        let harness = try FetchHarness()
        // Another key under the same key ID: Apple cannot verify the signature.
        let stranger = MockAPIKey()
        let keyPath = try stranger.writeKeyFile(
            in: harness.directory.appendingPathComponent("other", isDirectory: true).creatingDirectory())
        let result = InProcess.run(
            [
                "fetch", "transaction", Seed.coins, "--key", keyPath, "--issuer-id", stranger.issuerID, "--bundle-id",
                stranger.bundleID,
            ] + harness.endpoints, stdin: nil)
        #expect(result.status == 77)
        #expect(harness.production.requests.first?.tokenVerdict?.refusal == .badSignature)
        #expect(
            result.stderr.contains(
                "401 Unauthorized from Production: Apple refused the bearer token (ES256, kid 2X9R4HXF34"))
        #expect(
            result.stderr.contains(
                "Production answers 401 until the app has a release in Production: try --environment Sandbox"))
        // A 401 is not retried, and Sandbox is not asked: the token is the problem.
        #expect(harness.production.requests.count == 1 && harness.sandbox.requests.isEmpty)
    }

    @Test("a clock more than a minute off Apple's is named in the 401")
    func clockSkew() throws {
        let harness = try FetchHarness()
        harness.production.clockOffset = .seconds(600)
        let result = harness.run(["transaction", Seed.coins])
        #expect(result.status == 77)
        #expect(harness.production.requests.first?.tokenVerdict?.refusal == .expired)
        #expect(result.stderr.contains("this machine's clock is 10 min behind Apple's (Date header)"))
    }

    @Test("credentials from JWSINSPECT_KEY_FILE, _ISSUER_ID and _BUNDLE_ID; a missing one names flag and variable")
    func environmentCredentials() throws {
        let harness = try FetchHarness()
        let variables = [
            "JWSINSPECT_KEY_FILE": harness.keyPath, "JWSINSPECT_ISSUER_ID": harness.key.issuerID,
            "JWSINSPECT_BUNDLE_ID": harness.key.bundleID,
        ]
        let result = InProcess.run(
            ["fetch", "transaction", Seed.coins, "-q"] + harness.endpoints, stdin: nil, environment: variables)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.production.requests.first?.tokenVerdict == .accepted)

        var missing = variables
        missing["JWSINSPECT_ISSUER_ID"] = nil
        let usage = InProcess.run(
            ["fetch", "transaction", Seed.coins] + harness.endpoints, stdin: nil, environment: missing)
        #expect(usage.status == 64)
        #expect(
            usage.stderr.hasPrefix(
                "jwsinspect: fetch: an issuer ID is needed: --issuer-id UUID (or JWSINSPECT_ISSUER_ID)\n"))
    }

    @Test("the key never appears in any output or saved file; --save keeps each body as sent, owner-only")
    func privacyAndSave() throws {
        let harness = try FetchHarness()
        harness.production.pageSize = 3
        // Missing parents are created, as mkdir -p would.
        let folder = harness.directory.appendingPathComponent("tickets/4711").path
        var outputs: [String] = []
        for format in ["table", "json", "jsonl"] {
            let result = harness.run(["history", Seed.subscriptionOriginal, "--format", format, "--save", folder])
            #expect(result.status == 0, "\(result.stderr)")
            outputs += [result.stdout, result.stderr]
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files == (1...3).map { "history-\(Seed.subscriptionOriginal)-Production-page-\($0).json" })
        // A --save that cannot be a folder: one line, exit 74, no request made.
        let file = harness.directory.appendingPathComponent("a-file").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let blocked = harness.run(["transaction", Seed.coins, "--save", file + "/answers"])
        #expect(blocked.status == 74)
        #expect(
            blocked.stderr.hasPrefix("jwsinspect: --save: cannot create folder '\(file)/answers': Not a directory\n"))
        for file in files {
            let path = folder + "/" + file
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            outputs.append(try String(contentsOfFile: path, encoding: .utf8))
        }
        // Saved exactly as the mock sent it.
        let first = try String(contentsOfFile: folder + "/" + files[0], encoding: .utf8)
        #expect(first.hasPrefix("{") && first.contains("\"revision\""))
        // No line of the key's PEM, and no bearer token, anywhere.
        let keyLines = harness.key.pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        let bearer = harness.production.requests.compactMap { $0.header("Authorization") }
        for output in outputs {
            #expect(!output.contains("PRIVATE KEY"))
            #expect(!keyLines.contains { output.contains($0) })
            #expect(!bearer.contains { output.contains($0.dropFirst("Bearer ".count)) })
        }
    }

    @Test(
        "usage: plain http to another host, an ID that is not one, an option of another kind, order in Sandbox",
        arguments: [
            (
                ["transaction", "1", "--production-url", "http://api.example.com"],
                "plain http to a host that is not loopback"
            ),
            (["transaction", "abc"], "a transaction ID is digits, like 2000000000000010; not 'abc'"),
            (["transaction", "1", "--since", "7d"], "--since is for fetch notifications, not fetch transaction"),
            (["order", "MQ7VL8L8FG", "--environment", "Sandbox"], "Apple's sandbox has no order IDs"),
            (["notifications"], "fetch notifications needs --since DATE"),
            (["notifications", "--since", "2025-05-01", "--until", "2025-04-01"], "--since must be before --until"),
            (["history", "1", "--start-date", "1d", "--end-date", "2d"], "--start-date must be before --end-date"),
            (["histroy", "1"], "'histroy' is not something to fetch (did you mean 'history'?)"),
            (["transaction"], "TRANSACTION_ID"),
        ])
    func usage(_ arguments: [String], _ message: String) throws {
        let harness = try FetchHarness()
        let result = InProcess.run(["fetch"] + arguments + harness.credentials, stdin: nil)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(harness.production.requests.isEmpty)
    }
}

extension URL {
    /// Creates the folder (and its parents) and returns it.
    fileprivate func creatingDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
