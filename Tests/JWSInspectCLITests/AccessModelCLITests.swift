import Foundation
import Testing

/// Issue 47, as a backend gating with `--require-active` and a support desk reading the first
/// line meet it: the one access model on minted App Store data (in process: now is 2025-06-01).
@Suite(.timeLimit(.minutes(10))) struct AccessModelCLITests {
    /// A `mint ca` folder, made once.
    static let ca: String? = {
        guard let folder = try? CLI.temporaryDirectory() else { return nil }
        let ca = folder.appendingPathComponent("ca").path
        return InProcess.run(["mint", "ca", "--out", ca]).status == 0 ? ca : nil
    }()

    /// A minted token of `kind` in a file, with `options` (`--notification-type`, `--set`, …).
    static func mint(_ kind: String, _ options: [String] = []) throws -> String {
        let ca = try #require(Self.ca)
        let minted = InProcess.run(["mint", kind, "--ca", ca] + options)
        #expect(minted.status == 0, "\(minted.stderr)")
        let file = try CLI.temporaryDirectory().appendingPathComponent("token.jws")
        try Data(minted.stdout.utf8).write(to: file)
        return file.path
    }

    /// `jwsinspect --root CA/root.der ARGUMENTS`.
    static func inspect(_ arguments: [String]) throws -> InProcess.Result {
        InProcess.run(["--root", try #require(Self.ca) + "/root.der"] + arguments)
    }

    struct Gate: CustomTestStringConvertible, Sendable {
        let name: String
        let kind: String
        let options: [String]
        let exit: Int32
        let state: String
        /// Words the first line holds.
        let headline: String
        var testDescription: String { name }
    }

    static let gates: [Gate] = [
        Gate(
            name: "an app transaction never passes --require-active", kind: "appTransaction", options: [], exit: 6,
            state: "not-an-entitlement", headline: "not an entitlement (proves the app was installed)"),
        Gate(
            name: "RESCIND_CONSENT decides on its app transaction: not an entitlement", kind: "notification",
            options: ["--notification-type", "RESCIND_CONSENT"], exit: 6, state: "not-an-entitlement",
            headline: "app transaction not an entitlement"),
        Gate(
            name: "DID_FAIL_TO_RENEW/GRACE_PERIOD grants until the grace period ends", kind: "notification",
            options: ["--notification-type", "DID_FAIL_TO_RENEW", "--subtype", "GRACE_PERIOD"], exit: 0,
            state: "billing-grace-period", headline: "(billing grace period)"),
        Gate(
            name: "DID_FAIL_TO_RENEW without a grace period: billing retry, no access", kind: "notification",
            options: ["--notification-type", "DID_FAIL_TO_RENEW"], exit: 6, state: "billing-retry",
            headline: "grants no access (billing retry since"),
        Gate(
            name: "a Family Sharing REVOKE reads as revoked from the family member", kind: "notification",
            options: ["--notification-type", "REVOKE"], exit: 6, state: "revoked",
            headline: "grants no access (revoked from family member"),
        Gate(
            name: "a REFUND whose transaction is not revoked decides nothing", kind: "notification",
            options: ["--notification-type", "REFUND", "--set", "transaction.revocationDate=null"], exit: 6,
            state: "undecided", headline: "no access decision (REFUND without revocationDate)"),
        Gate(
            name: "a renewal in its term grants", kind: "notification", options: ["--notification-type", "DID_RENEW"],
            exit: 0, state: "active", headline: "transaction grants access until"),
        Gate(
            name: "a consumable is not an entitlement", kind: "notification",
            options: ["--notification-type", "CONSUMPTION_REQUEST"], exit: 6, state: "not-an-entitlement",
            headline: "not an entitlement (consumable)"),
    ]

    @Test(arguments: gates)
    func requireActive(_ gate: Gate) throws {
        let token = try Self.mint(gate.kind, gate.options)
        let table = try Self.inspect(["--require-active", "--brief", token])
        #expect(table.status == gate.exit, "\(table.stdout)\(table.stderr)")
        let first = String(table.stdout.split(separator: "\n").first ?? "")
        #expect(first.contains(gate.headline), "\(first)")
        let json = try Self.inspect(["--require-active", "--format", "jsonl", token])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let access = try #require(record["access"] as? [String: Any])
        #expect(access["state"] as? String == gate.state, "\(access)")
        #expect((access["grants"] as? Bool == true) == (gate.exit == 0), "\(access)")
    }

    /// `--access-at` moves the access time alone; `--at` the certificate check time alone.
    @Test func twoClocksForTwoQuestions() throws {
        let token = try Self.mint("notification", ["--notification-type", "DID_RENEW"])
        #expect(try Self.inspect(["--require-active", "-q", token]).status == 0)
        // A month and more on, the same renewal has expired: inactive (6), its chain still valid.
        let later = try Self.inspect(["--require-active", "--access-at", "2025-08-01", "--format", "jsonl", token])
        #expect(later.status == 6, "\(later.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(later.stdout.utf8)) as? [String: Any])
        #expect((record["access"] as? [String: Any])?["time"] as? String == "2025-08-01T00:00:00.000Z")
        #expect((record["access"] as? [String: Any])?["state"] as? String == "expired")
        #expect((record["checkTime"] as? [String: Any])?["basis"] as? String != "fixed time")
        // --at moves only when certificates are checked: the access verdict is now's.
        let checked = try Self.inspect(["--require-active", "--at", "now", "-q", token])
        #expect(checked.status == 0, "\(checked.stderr)")
        // Before the purchase, nothing is granted.
        let before = try Self.inspect(["--require-active", "--access-at", "2020-01-01", "--brief", token])
        #expect(before.status == 6 && before.stdout.contains("not yet purchased"), "\(before.stdout)")
        let refused = try Self.inspect(["--access-at", "someday", token])
        #expect(refused.status == 64 && refused.stderr.contains("--access-at takes 'now'"), "\(refused.stderr)")
    }
}

/// Issue 47, item 8: in a long view the verdict is repeated at its end, and a chain nested
/// tokens share with their notification is printed once.
@Suite struct LongViewTests {
    static let notification = CLI.packageRoot.appendingPathComponent("Samples/notification-subscribed-sandbox-2025.jws")
        .path

    @Test func theVerdictEndsALongViewAndASharedChainIsPrintedOnce() {
        let result = InProcess.run([Self.notification])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count > 40)
        #expect(lines.last == "VERDICT  " + lines[0], "\(lines.last ?? "")")
        #expect(lines.filter { $0.contains("[0] leaf") }.count == 1, "the notification's chain alone is printed")
        #expect(lines.filter { $0 == "    CHAIN  the same 3 certificates as above" }.count == 2)
        // A short view ends as it did: brief, and a token whose table fits a screen.
        let brief = InProcess.run(["--brief", Self.notification])
        #expect(!brief.stdout.contains("VERDICT"))
    }
}
