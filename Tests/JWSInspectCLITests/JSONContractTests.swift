import AppStoreServerAPI
import AppStoreServerHTTP
import Foundation
import StrictJSONParser
import TestPKI
import TestSupport
import Testing

@testable import JWSInspectCLI

private typealias Seed = MockAppStoreServer.Seed

/// The published JSON contract (docs/schema/): every record of every subcommand, from a fixed
/// corpus (the samples, a `mint suite`, a minted timeline log, the mock API's answers and
/// failures, `listen` and its log, `sign`, `mint` and `verify-offer-v1`), begins with `schemaVersion` and a `record`
/// that has a schema; no key has two types anywhere outside the signed data; each subcommand's
/// keys and types are pinned by a golden file; and `make difftest` validates every record
/// against its schema with Python's jsonschema (JWSINSPECT_DIFFTEST_PYTHON).
@Suite("the JSON contract", .timeLimit(.minutes(10)))
struct JSONContractTests {
    /// One record and the subcommand that wrote it.
    struct Record: Sendable {
        let subcommand: String
        let line: String
    }

    /// The corpus, made once for every test of the suite; why it could not be made, else nil.
    static let corpus: (records: [Record], problem: String?) = {
        do {
            return (try makeCorpus(), nil)
        } catch {
            return ([], "\(error)")
        }
    }()

    /// Members whose content is the signed data or the API's answer as it came (Apple's names
    /// and types: dates in milliseconds), not this program's keys.
    static let opaque: Set<String> = ["payload", "header", "display", "response"]
    /// Members whose keys are data (a path, a status, an anomaly's name), not names of the contract.
    static let maps: Set<String> = ["nested", "statuses", "anomalyCounts"]

    @Test("every record has schemaVersion 1 and a record type whose schema is in docs/schema")
    func everyRecordNamesItsSchema() throws {
        let records = try Self.records()
        let schemas = CLI.packageRoot.appendingPathComponent("docs/schema")
        var types: Set<String> = []
        for record in records {
            let object = try Self.object(record.line)
            #expect(object["schemaVersion"] as? Double == 1, "\(record.subcommand): \(record.line.prefix(200))")
            let type = try #require(object["record"] as? String, "\(record.subcommand): \(record.line.prefix(200))")
            types.insert(type)
            #expect(
                FileManager.default.fileExists(atPath: schemas.appendingPathComponent("\(type).schema.json").path),
                "no docs/schema/\(type).schema.json")
        }
        // Every record type is in the corpus, and every schema but the shared one is a record type.
        #expect(types == Set(RecordType.allCases.map(\.rawValue)))
        let files = try FileManager.default.contentsOfDirectory(atPath: schemas.path)
            .filter { $0.hasSuffix(".schema.json") }.map { String($0.dropLast(".schema.json".count)) }
        #expect(Set(files) == types.union(["common"]))
    }

    @Test("no key has two types, in one subcommand or across them (the signed data aside)")
    func oneKeyOneType() throws {
        var seen: [String: [String: String]] = [:]
        for record in try Self.records() {
            var shape: [String: Set<String>] = [:]
            Self.walk(try Self.object(record.line), path: "", into: &shape)
            // A key's own value: not an array's elements (`x[]`) nor a map's members (`*`).
            for (path, types) in shape {
                let key = String(path.split(separator: ".").last ?? "")
                guard !key.hasSuffix("[]"), key != "*" else { continue }
                for type in types where type != "null" {
                    seen[key, default: [:]][type] = seen[key]?[type] ?? "\(record.subcommand) \(path)"
                }
            }
        }
        for (key, types) in seen.sorted(by: { $0.key < $1.key }) where types.count > 1 {
            Issue.record("key '\(key)' has \(types.count) types: \(types.sorted { $0.key < $1.key })")
        }
        // The rule itself: dates are strings everywhere outside the signed data.
        #expect(seen["expiresDate"].map { Set($0.keys) } == ["string"])
        #expect(seen["signedDate"].map { Set($0.keys) } == ["string"])
    }

    @Test(
        "each subcommand's records: their keys and types, pinned",
        arguments: ["inspect", "fetch", "listen", "timeline", "sign", "mint", "verify-offer-v1"])
    func keysArePinned(_ subcommand: String) throws {
        var lines: Set<String> = []
        for record in try Self.records() where record.subcommand == subcommand {
            let object = try Self.object(record.line)
            let type = try #require(object["record"] as? String)
            var shape: [String: Set<String>] = [:]
            Self.walk(object, path: "", into: &shape)
            for (path, types) in shape { lines.insert("\(type) \(path) \(types.sorted().joined(separator: "|"))") }
        }
        try #require(!lines.isEmpty, "the corpus has no record of \(subcommand)")
        // Types seen together per path, merged across records of one type.
        var merged: [String: Set<String>] = [:]
        for line in lines {
            let parts = line.split(separator: " ")
            merged["\(parts[0]) \(parts[1])", default: []].formUnion(parts[2].split(separator: "|").map(String.init))
        }
        let text = merged.keys.sorted().map { "\($0) \(merged[$0]!.sorted().joined(separator: "|"))" }
            .joined(separator: "\n")
        try DocumentationTests.expectGolden(text + "\n", "contract-\(subcommand).txt")
    }

    @Test(
        "every record validates against its schema (Python's jsonschema, under make difftest)",
        .enabled(if: ProcessInfo.processInfo.environment["JWSINSPECT_DIFFTEST_PYTHON"] != nil))
    func schemasValidate() throws {
        let python = try #require(ProcessInfo.processInfo.environment["JWSINSPECT_DIFFTEST_PYTHON"])
        let file = try CLI.temporaryDirectory().appendingPathComponent("corpus.jsonl")
        try Data(try Self.records().map { $0.line + "\n" }.joined().utf8).write(to: file)
        let result = try CLI.runProgram(
            python,
            [
                CLI.packageRoot.appendingPathComponent("scripts/difftest/validate_schemas.py").path, "--every-type",
                CLI.packageRoot.appendingPathComponent("docs/schema").path, file.path,
            ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains(" 0 failed"), "\(result.stdout)")
        // The count, in make difftest's log.
        print(result.stdout, terminator: "")
    }

    @Test("authentic is apart from the verdict: genuine but unexpected data is authentic, a forgery is not")
    func authenticIsApartFromTheVerdict() throws {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let token = try String(contentsOfFile: sample, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        func record(_ arguments: [String], stdin: String? = nil) throws -> [String: Any] {
            let result = InProcess.run(["--format", "jsonl"] + arguments, stdin: stdin)
            return try Self.object(String(result.stdout.split(separator: "\n").first ?? ""))
        }
        let valid = try record([sample])
        #expect(valid["verified"] as? Bool == true && valid["authentic"] as? Bool == true)
        // Another environment, another app: genuine, not what was expected.
        for expectation in [["--environment", "Production"], ["--bundle-id", "com.example.other"]] {
            let genuine = try record(expectation + [sample])
            #expect(genuine["verified"] as? Bool == false && genuine["authentic"] as? Bool == true, "\(expectation)")
        }
        // A signature from nowhere: neither.
        let forged = token.dropLast(4) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        let forgery = try record(["-"], stdin: String(forged))
        #expect(forgery["status"] as? String == "invalid-signature")
        #expect(forgery["verified"] as? Bool == false && forgery["authentic"] as? Bool == false)
        // Nothing checked: not authentic, whatever the payload says.
        let unchecked = try record(["--no-verify", sample])
        #expect(unchecked["authentic"] as? Bool == false)
    }

    // MARK: - The walk

    /// Each path's JSON types (`.`-separated; `[]` for an array's elements; a map's keys `*`),
    /// outside the opaque members, whose own type alone is noted.
    static func walk(_ value: Any, path: String, into shape: inout [String: Set<String>]) {
        if !path.isEmpty { shape[path, default: []].insert(typeName(value)) }
        let name = String(path.split(separator: ".").last ?? "")
        if opaque.contains(name) { return }
        if let object = value as? [String: Any] {
            for (key, member) in object {
                let memberPath = path.isEmpty ? key : "\(path).\(maps.contains(name) ? "*" : key)"
                // A nested result is a result: its keys are checked where it is a record.
                if name == "nested" {
                    shape[memberPath, default: []].insert(typeName(member))
                    continue
                }
                walk(member, path: memberPath, into: &shape)
            }
        } else if let array = value as? [Any] {
            for element in array { walk(element, path: path + "[]", into: &shape) }
        }
    }

    static func typeName(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case is Bool: "boolean"
        case let number as Double: number == number.rounded() ? "integer" : "number"
        case is String: "string"
        case is [Any]: "array"
        default: "object"
        }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try StrictJSON.parse(Array(line.utf8)) as? [String: Any], "not an object: \(line.prefix(200))")
    }

    static func records() throws -> [Record] {
        if let problem = corpus.problem { throw CorpusFailure(message: problem, made: true) }
        return corpus.records
    }

    struct CorpusFailure: Error, CustomStringConvertible {
        let message: String
        var made = false
        var description: String { made ? message : "the corpus could not be made: \(message)" }
    }

    // MARK: - The corpus

    /// Runs every subcommand that writes JSON over the fixed corpus, in this process; every
    /// line of standard output, and `--summary`'s record on standard error, is a record.
    static func makeCorpus() throws -> [Record] {
        var records: [Record] = []
        func add(_ subcommand: String, _ result: InProcess.Result, expect statuses: Set<Int32> = [0]) throws {
            guard statuses.contains(result.status) else {
                throw CorpusFailure(message: "\(subcommand) exited \(result.status): \(result.stderr.prefix(400))")
            }
            let lines =
                result.stdout.split(separator: "\n")
                + result.stderr.split(separator: "\n").filter {
                    $0.hasPrefix("{")
                }
            records += lines.map { Record(subcommand: subcommand, line: String($0)) }
        }
        let folder = try CLI.temporaryDirectory()
        let samples = CLI.packageRoot.appendingPathComponent("Samples")
        let sampleFiles = try FileManager.default.contentsOfDirectory(atPath: samples.path).sorted().map {
            samples.appendingPathComponent($0).path
        }

        // inspect: the samples (a receipt, a README that holds no JWS), a file that is not there,
        // --summary's record, and --no-verify.
        let missing = folder.appendingPathComponent("missing.jws").path
        try add(
            "inspect", InProcess.run(["--format", "jsonl", "--summary"] + sampleFiles + [missing]), expect: [5, 66])
        try add("inspect", InProcess.run(["--format", "jsonl", "--no-verify", sampleFiles[1]]))
        // A StoreKit 1 transaction receipt of the fuller shape (the sample, Apple's, holds a
        // purchase-info alone), with expectations and under --no-verify.
        let transactionReceipt = TransactionReceiptBuilder().base64
        try add(
            "inspect",
            InProcess.run(
                ["--format", "jsonl", "--require-active", "--bundle-id", "com.example.app"], stdin: transactionReceipt),
            expect: [10])
        try add("inspect", InProcess.run(["--format", "jsonl", "--no-verify"], stdin: transactionReceipt))

        // mint: a CA, each token kind, a suite inspect reads, a timeline log timeline folds.
        let ca = folder.appendingPathComponent("ca").path
        try add("mint-ca", InProcess.run(["mint", "ca", "--out", ca, "--backdate", "90"]))
        records.removeAll { $0.subcommand == "mint-ca" }
        for kind in ["transaction", "renewalInfo", "notification", "appTransaction", "realtimeRequest"] {
            try add("mint", InProcess.run(["mint", kind, "--ca", ca, "--format", "jsonl"]))
        }
        let suite = folder.appendingPathComponent("suite")
        let minted = InProcess.run(["mint", "suite", "--ca", ca, "--out", suite.path])
        guard minted.status == 0 else { throw CorpusFailure(message: "mint suite: \(minted.stderr)") }
        let suiteFiles = try FileManager.default.contentsOfDirectory(atPath: suite.path).sorted()
            .filter { $0 != "manifest.json" }.map { suite.appendingPathComponent($0).path }
        try add(
            "inspect",
            InProcess.run(["--format", "jsonl", "--root", "\(ca)/root.der"] + suiteFiles),
            expect: Set(Int32(0)...Int32(9)))
        let log = InProcess.run(["mint", "timeline", "--ca", ca])
        guard log.status == 0 else { throw CorpusFailure(message: "mint timeline: \(log.stderr)") }
        let logFile = folder.appendingPathComponent("log.jsonl")
        try Data(log.stdout.utf8).write(to: logFile)
        try add(
            "timeline",
            InProcess.run(["timeline", "--format", "jsonl", "--root", "\(ca)/root.der", logFile.path, missing]),
            expect: [66])
        // The samples under a root that is not theirs: every item skipped.
        try add(
            "timeline", InProcess.run(["timeline", "--format", "jsonl", "--root", "\(ca)/root.der"] + sampleFiles),
            expect: [2, 5])

        // listen: --import (delivery records, the summary on standard error, the log's stored
        // lines), then a listener fed by a scripted server in this process (`ScriptedServer`: the
        // HTTP server is libmicrohttpd's, built and tested apart): an answer of each kind, a
        // forward that fails and is then delivered, the log's forwarded line; and one without --log.
        try addListen(ca: ca, folder: folder, samples: samples, add: add)

        // sign, and verify-offer-v1 on what it signed (and on another offer).
        let keys = try SignCommandTests.Keys()
        let credentials = ["--key", keys.path, "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a"]
        for (kind, extra) in [
            ("api-token", [String]()), ("promotional-offer", ["--product-id", "p", "--offer-id", "o"]),
            (
                "introductory-offer-eligibility",
                ["--product-id", "p", "--allow-introductory-offer", "true", "--transaction-id", "2000000000000001"]
            ),
            ("advanced-commerce", ["--request", #"{"operation":"CREATE_ONE_TIME_CHARGE"}"#]),
        ] {
            try add(
                "sign",
                InProcess.run(["sign", kind, "--bundle-id", "com.example", "--format", "jsonl"] + credentials + extra))
        }
        try add(
            "sign",
            InProcess.run(
                ["sign", "promotional-offer-v1", "--key", keys.path, "--format", "jsonl"] + VerifyOfferV1Tests.fields())
        )
        let signature = try VerifyOfferV1Tests.signature(keys)
        try add(
            "verify-offer-v1",
            InProcess.run(
                ["verify-offer-v1", "--key", keys.path, "--format", "jsonl"] + VerifyOfferV1Tests.fields()
                    + [signature]))
        try add(
            "verify-offer-v1",
            InProcess.run(
                ["verify-offer-v1", "--key", keys.path, "--format", "jsonl"]
                    + VerifyOfferV1Tests.fields(offer: "another") + [signature]), expect: [1])

        // inspect: a realtime response of each option, and one Apple's model refuses.
        for (_, body) in try RealtimeResponseTests.bodies(keys).sorted(by: { $0.key < $1.key }) {
            try add(
                "inspect",
                InProcess.run(["--format", "jsonl", "--key", keys.path, "--bundle-id", "com.example"], stdin: body))
        }
        try add("inspect", InProcess.run(["--format", "jsonl"], stdin: #"{"message":{}}"#), expect: [7])

        // fetch: every endpoint's answer, and each way a request fails.
        let harness = try FetchHarness()
        for arguments in [
            ["transaction", Seed.coins], ["history", Seed.subscriptionOriginal],
            ["subscriptions", Seed.subscriptionOriginal], ["order", Seed.orderA],
            ["refunds", Seed.subscriptionOriginal], ["app-transaction", Seed.subscriptionOriginal],
            ["notifications", "--since", "2025-01-01"], ["test-notification"],
        ] {
            try add("fetch", harness.run(arguments + ["--format", "jsonl", "--summary"]))
        }
        try add("fetch", harness.run(["transaction", Seed.unknownTransaction, "--format", "jsonl"]), expect: [8])
        harness.production.enqueue(.internalError, forPathPrefix: "/inApps/v1/transactions/", times: 2)
        try add("fetch", harness.run(["transaction", Seed.coins, "--retries", "1", "--format", "jsonl"]), expect: [75])
        harness.production.enqueue(.malformedJSON, forPathPrefix: "/inApps/v1/transactions/")
        try add("fetch", harness.run(["transaction", Seed.coins, "--format", "jsonl"]), expect: [69])
        let stranger = MockAPIKey()
        let otherFolder = folder.appendingPathComponent("other", isDirectory: true)
        try FileManager.default.createDirectory(at: otherFolder, withIntermediateDirectories: true)
        let strangerKey = try stranger.writeKeyFile(in: otherFolder)
        try add(
            "fetch",
            InProcess.run(
                [
                    "fetch", "transaction", Seed.coins, "--format", "jsonl", "--key", strangerKey, "--issuer-id",
                    stranger.issuerID, "--bundle-id", stranger.bundleID,
                ] + harness.endpoints, stdin: nil), expect: [77])
        return records
    }

    /// listen's records: what `--import` and a scripted listener print, and the lines of their logs.
    static func addListen(
        ca: String, folder: URL, samples: URL, add: (String, InProcess.Result, Set<Int32>) throws -> Void
    ) throws {
        func minted(_ kind: String) throws -> String {
            let run = InProcess.run(["mint", kind, "--ca", ca])
            guard run.status == 0 else { throw CorpusFailure(message: "mint \(kind): \(run.stderr)") }
            return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func body(_ token: String) -> String { #"{"signedPayload":"\#(token)"}"# }
        let first = try minted("notification")
        let second = try minted("notification")
        let transaction = try minted("transaction")
        // Apple's notification, under a root that is not Apple's: not authentic.
        let apple = try String(
            contentsOf: samples.appendingPathComponent("notification-subscribed-sandbox-2025.jws"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let root = ["--root", "\(ca)/root.der", "--format", "jsonl"]
        func logLines(_ path: String) throws {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try add("listen", InProcess.Result(status: 0, stdout: text, stderr: ""), [0])
        }

        // --import: stored, repeated, stored, then a forgery and a transaction (rejected).
        let imported = folder.appendingPathComponent("imported.jsonl").path
        let bodies = folder.appendingPathComponent("bodies.jsonl")
        try Data(([first, first, second, apple, transaction].map(body).joined(separator: "\n") + "\n").utf8)
            .write(to: bodies)
        try add(
            "listen", InProcess.run(["listen", "--import", bodies.path, "--log", imported] + root),
            Set(Int32(1)...Int32(9)))
        try logLines(imported)

        // Served: every answer but 408 and 503, and a forward answered 503, then 200.
        func request(
            _ text: String, method: String = "POST", path: String = "/", problem: ReceivedRequest.Problem? = nil
        ) -> ReceivedRequest {
            ReceivedRequest(
                method: method, path: path, remoteAddress: "127.0.0.1", contentType: "application/json",
                body: Array(text.utf8), problem: problem)
        }
        let transport = ScriptedTransport(statuses: [503, 200])
        let server = ScriptedServer(
            requests: [
                request(body(first)), request(body(first)), request(body(apple)), request(body(transaction)),
                request("{}"), request("", path: "/other"), request("", method: "GET"),
                request("", problem: .tooLarge(declared: 2 << 20)),
            ],
            until: { transport.requests.count >= 2 })
        let served = folder.appendingPathComponent("served.jsonl").path
        let run = InProcess.run(
            ["listen", "--log", served, "--forward-to", "http://127.0.0.1:9/hooks/apple"] + root,
            transport: transport, server: server)
        unblockListenSignals()
        guard server.answers.map(\.status) == [200, 200, 403, 422, 400, 404, 405, 413] else {
            throw CorpusFailure(message: "listen answered \(server.answers.map(\.status)): \(run.stderr.prefix(400))")
        }
        try add("listen", run, [0])
        try logLines(served)

        // Without --log: shown, and not kept.
        let shown = ScriptedServer(requests: [request(body(second))])
        try add("listen", InProcess.run(["listen"] + root, transport: transport, server: shown), [0])
        unblockListenSignals()
    }
}
