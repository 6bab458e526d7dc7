import Foundation
import JWSInspectCore
import TestPKI
import Testing

private typealias Seed = MockAppStoreServer.Seed

/// `jwsinspect timeline` (issue 29) on logs `mint timeline` makes: the state, every anomaly the
/// log has (and none in a clean one), records, exit statuses, an item that fails verification,
/// `--customer`, and `--against` Apple's record fetched from the mock App Store Server API.
@Suite(.timeLimit(.minutes(10)), .serialized) struct TimelineCommandTests {
    /// A CA whose leaf signs 70 days back, and its two logs: as delivered, and clean.
    static let folder: URL = {
        // swiftlint:disable:next force_try
        let folder = try! CLI.temporaryDirectory()
        let ca = folder.appendingPathComponent("ca").path
        _ = InProcess.run(["mint", "ca", "--out", ca, "--backdate", "70"])
        for (name, extra) in [("webhooks.jsonl", [String]()), ("clean.jsonl", ["--clean"])] {
            let log = InProcess.run(["mint", "timeline", "--ca", ca] + extra)
            _ = FileManager.default.createFile(
                atPath: folder.appendingPathComponent(name).path, contents: Data(log.stdout.utf8))
        }
        return folder
    }()
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    static var root: [String] { ["--root", path("ca/root.der")] }

    static func timeline(_ arguments: [String]) -> InProcess.Result {
        InProcess.run(["timeline"] + root + arguments)
    }

    static func records(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aLogAsDeliveredShowsItsStateAndItsAnomalies() throws {
        let result = Self.timeline([Self.path("webhooks.jsonl")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "SUBSCRIPTION 2000000900000001 · com.example.app.premium.monthly · Sandbox · "
                    + "grants access until ") == true, "\(result.stdout)")
        #expect(lines.first?.hasSuffix(" · 2 anomalies") == true)
        #expect(lines.contains { $0.contains("↻ DID_RENEW  item 2, 3  ") })
        #expect(lines.contains { $0.contains("↩ REFUND  item 4  ") && $0.contains("(revoked ") })
        #expect(lines.contains { $0.hasPrefix("  ! duplicate: DID_RENEW ") && $0.hasSuffix("(items 2, 3)") })
        #expect(lines.contains { $0.hasPrefix("  ! out-of-order: DID_FAIL_TO_RENEW/GRACE_PERIOD ") })
        #expect(
            lines.last == "6 items: 5 folded (1 repeated delivery), 0 skipped; 1 subscription; anomalies: "
                + "1 duplicate, 1 out-of-order")
        let quiet = Self.timeline(["--fail-on-anomaly", "-q", Self.path("webhooks.jsonl")])
        #expect(quiet.status == 9 && quiet.stdout.isEmpty, "-q: silent, the exit status says it")
        #expect(Self.timeline(["--fail-on-anomaly", "--brief", Self.path("webhooks.jsonl")]).status == 9)
    }

    @Test func aCleanLogHasNoAnomaly() {
        let result = Self.timeline(["--fail-on-anomaly", "--brief", Self.path("clean.jsonl")])
        #expect(result.status == 0)
        #expect(
            result.stdout.hasSuffix("5 items: 5 folded, 0 skipped; 1 subscription; no anomaly\n"), "\(result.stdout)")
    }

    @Test func recordsComeInTheirDocumentedOrderAndShape() throws {
        let result = Self.timeline(["--format", "jsonl", Self.path("webhooks.jsonl")])
        #expect(result.status == 0)
        let records = try Self.records(result.stdout)
        #expect(records.map { $0["record"] as? String } == ["subscription", "anomaly", "anomaly", "timelineSummary"])
        #expect(records.allSatisfy { $0["schemaVersion"] as? Int == 1 && $0["type"] == nil })
        let subscription = records[0]
        #expect(subscription["originalTransactionId"] as? String == "2000000900000001")
        // The one access object, as inspect and fetch write it.
        let access = try #require(subscription["access"] as? [String: Any])
        #expect(access["grants"] as? Bool == true && access["state"] as? String == "active")
        #expect(access.keys.sorted() == ["decidedBy", "detail", "grants", "state", "time", "until"])
        #expect(subscription["grants"] == nil)
        #expect(
            (subscription["events"] as? [[String: Any]])?.map { $0["notificationType"] as? String }
                == ["SUBSCRIBED", "DID_RENEW", "REFUND", "DID_FAIL_TO_RENEW", "DID_RENEW"])
        #expect(
            (subscription["events"] as? [[String: Any]])?.allSatisfy { $0["type"] as? String == "notification" } == true
        )
        #expect((subscription["anomalies"] as? [[String: Any]])?.count == 2)
        #expect(records[1]["anomaly"] as? String == "duplicate" && records[1]["items"] as? [Int] == [2, 3])
        #expect(records[2]["anomaly"] as? String == "out-of-order" && records[2]["items"] as? [Int] == [5, 6])
        #expect(records[3]["itemsRead"] as? Int == 6 && records[3]["skipped"] as? Int == 0)
    }

    /// A forged item is reported and never folded: the state stays what the authentic items say.
    @Test func anItemThatFailsVerificationIsSkippedNotFolded() throws {
        let log = try String(contentsOfFile: Self.path("clean.jsonl"), encoding: .utf8)
        let lines = log.split(separator: "\n").map(String.init)
        // The last notification (the recovery) with its signature from another token: forged.
        let recovery = lines[4]
        let signature = lines[0].split(separator: ".").last!
        let forged = recovery.split(separator: ".").dropLast().joined(separator: ".") + "." + signature
        let path = Self.path("forged-\(UUID().uuidString).jsonl")
        try Data((lines[0..<4] + [forged]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let result = Self.timeline(["--format", "jsonl", path])
        #expect(result.status == 1, "\(result.stdout)")
        let records = try Self.records(result.stdout)
        let skipped = records.filter { $0["record"] as? String == "skipped" }
        #expect(skipped.count == 1 && skipped.first?["item"] as? Int == 5)
        #expect(skipped.first?["status"] as? String == "invalid-signature")
        #expect((skipped.first?["reason"] as? String)?.contains("signature") == true)
        let events = records.first?["events"] as? [[String: Any]] ?? []
        #expect(events.count == 4 && !events.contains { $0["subtype"] as? String == "BILLING_RECOVERY" })
    }

    /// A payload's control characters are escaped: no escape sequence, no line of its own.
    @Test func hostileTextInAPayloadIsEscaped() throws {
        let minted = InProcess.run([
            "mint", "notification", "--ca", Self.path("ca"), "--notification-type", "DID_RENEW", "--set",
            "transaction.productId=\"pro\\u001b[2J\\nSUBSCRIPTION fake\"",
        ])
        #expect(minted.status == 0, "\(minted.stderr)")
        let path = Self.path("hostile-\(UUID().uuidString).jws")
        try Data(minted.stdout.utf8).write(to: URL(fileURLWithPath: path))
        let result = Self.timeline([path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1b}"))
        #expect(result.stdout.contains("pro\\u{1b}[2J\\u{a}SUBSCRIPTION fake"), "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("SUBSCRIPTION") }.count == 1)
    }

    /// Inputs are named as inspect names them: each argument by its own position.
    @Test func eachInputIsNamedByItsPosition() throws {
        let result = Self.timeline(["--format", "jsonl", "eyJ.e30.x", "eyJ.e30.y"])
        #expect(result.status == 5)
        let skipped = try Self.records(result.stdout).filter { $0["record"] as? String == "skipped" }
        #expect(skipped.map { $0["source"] as? String } == ["argument 1", "argument 2"])
    }

    @Test func customerKeepsOneAccountTokensSubscriptions() {
        let own = Self.timeline([
            "--brief", "--customer", "7E3FB20B-4CDB-47CC-936D-99D65F608138", Self.path("clean.jsonl"),
        ])
        #expect(own.stdout.hasPrefix("SUBSCRIPTION 2000000900000001"))
        let other = Self.timeline(["--brief", "--customer", UUID().uuidString, Self.path("clean.jsonl")])
        #expect(other.stdout.hasPrefix("5 items: 5 folded, 0 skipped; 0 subscriptions"), "\(other.stdout)")
    }

    @Test(arguments: [
        ["--grace-period", "16"], ["--customer", "nope"], ["--jobs", "0"], ["--color=sometimes"],
    ])
    func usageErrors(arguments: [String]) {
        let result = Self.timeline(arguments + [Self.path("clean.jsonl")])
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }

    /// Apple's record, fetched from the mock and kept with --save: what the log lacks is missed.
    @Test func againstApplesRecordNamesWhatABackfillMustReplay() throws {
        let harness = try FetchHarness()
        let saved = try CLI.temporaryDirectory()
        let history = harness.run([
            "history", Seed.subscriptionOriginal, "--save", saved.appendingPathComponent("history").path, "-q",
        ])
        #expect(history.status == 0, "\(history.stderr)")
        let mine = harness.run([
            "transaction", Seed.subscriptionRenewal2, "--save", saved.appendingPathComponent("mine").path, "-q",
        ])
        #expect(mine.status == 0, "\(mine.stderr)")
        let files = { (name: String) in
            try FileManager.default.contentsOfDirectory(atPath: saved.appendingPathComponent(name).path).sorted().map {
                saved.appendingPathComponent(name).appendingPathComponent($0).path
            }
        }
        var arguments = ["timeline", "--root", harness.rootPath, "--format", "jsonl"]
        for file in try files("history") { arguments += ["--against", file] }
        let result = InProcess.run(arguments + (try files("mine")))
        #expect(result.status == 0, "\(result.stderr)")
        let missed = try Self.records(result.stdout).filter { $0["anomaly"] as? String == "missed" }
        // The customer's whole history (every product), but the transaction the log holds.
        let identifiers = missed.compactMap { $0["identifier"] as? String }
        #expect(identifiers.count == 6 && Set(identifiers).count == 6)
        #expect(identifiers.contains(Seed.subscriptionOriginal) && identifiers.contains(Seed.subscriptionRenewal1))
        #expect(!identifiers.contains(Seed.subscriptionRenewal2))
        #expect(
            missed.allSatisfy {
                ($0["detail"] as? String)?.hasSuffix("is in Apple's record and no input carries it") == true
            })
    }
}
