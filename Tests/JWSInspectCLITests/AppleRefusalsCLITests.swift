import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// What Apple's libraries refuse, refused through the built executable (issue 48, item 5):
/// each was accepted before, a parser differential against Apple's Python library.
@Suite(.timeLimit(.minutes(10))) struct AppleRefusalsCLITests {
    static let pki = ExecutableTests.pki
    static var root: String { ExecutableTests.rootFile }

    static func run(_ arguments: [String], _ token: String) throws -> (CLI.Result, [String: Any]) {
        let result = try CLI.run(["--root", root, "--format", "jsonl"] + arguments + ["--", token])
        return (result, try #require(try result.jsonObjects().first))
    }

    static func check(_ name: String, in record: [String: Any]) -> [String: Any]? {
        (record["checks"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    /// An `x5c` entry with `=` after its correct padding (or padding after a whole group):
    /// Apple decodes with `b64decode(…, validate=True)`, which refuses excess data after
    /// padding; Foundation alone took it.
    @Test(arguments: [
        ("=", "one = too many"), ("==", "two = too many"), ("====", "a whole group of ="),
    ])
    func anX5CEntryWithExtraPaddingIsRefused(extra: String, what: String) throws {
        let x5c = Self.pki.x5c
        // The entry whose base64 ends in padding, when one does, else the leaf (a whole group).
        let index = x5c.prefix(2).firstIndex { $0.hasSuffix("=") } ?? 0
        var entries = x5c
        entries[index] += extra
        let token = TestPKI.compactJWS(
            headerJSON: Self.pki.headerJSON(x5c: entries), payloadJSON: TestPayloads.transaction(),
            key: Self.pki.leaf.key)
        let (result, record) = try Self.run([], token)
        #expect(result.status == 2, "\(what): \(result.stdout)")
        #expect(record["status"] as? String == "invalid-chain", "\(what)")
        let detail = Self.check("x5c", in: record)?["detail"] as? String ?? ""
        #expect(detail.contains("x5c[\(index)] is not standard base64"), "\(what): \(detail)")
        // The same entries, correctly padded, pass: only the padding differs.
        let (control, _) = try Self.run([], Self.pki.sign(payloadJSON: TestPayloads.transaction()))
        #expect(control.status == 0)
    }

    /// `--bundle-id` compares code points, as Apple does: U+212A KELVIN SIGN is not `K`, a
    /// composed accent is not its decomposed form (Swift's `==` says both are equal).
    @Test(arguments: [
        ("com.example.\u{212A}app", "com.example.Kapp"),
        ("com.example.caf\u{E9}", "com.example.cafe\u{301}"),
        ("com.example.cafe\u{301}", "com.example.caf\u{E9}"),
    ])
    func aBundleIDIsComparedByItsBytes(payload: String, expected: String) throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction(bundleId: payload))
        let (result, record) = try Self.run(["--bundle-id", expected], token)
        #expect(result.status == 4, "\(result.stdout)")
        #expect(record["status"] as? String == "wrong-app")
        // The same bytes pass.
        let (same, _) = try Self.run(["--bundle-id", payload], token)
        #expect(same.status == 0, "\(same.stdout)")
    }

    /// A receipt's `bundle_id` too.
    @Test func aReceiptBundleIDIsComparedByItsBytes() throws {
        var builder = ReceiptBuilder()
        builder.bundleID = "com.example.\u{212A}app"
        let file = try ReceiptCLI.file(ReceiptCLI.chain.sign(builder.der()), named: "kelvin.der")
        let refused = try CLI.run(["--root", ReceiptCLI.rootFile, "--bundle-id", "com.example.Kapp", file])
        #expect(refused.status == 4, "\(refused.stdout)")
        let same = try CLI.run(["--root", ReceiptCLI.rootFile, "--bundle-id", "com.example.\u{212A}app", file])
        #expect(same.status == 0, "\(same.stdout)")
    }

    /// `"b64": false` says the payload is not base64url (RFC 7797), which requires `crit` to
    /// name it: reading the payload as base64url anyway was a guess. Apple refuses it too.
    @Test(arguments: ["false", "0", #""no""#, "null"])
    func anUnencodedPayloadHeaderIsRefused(b64: String) throws {
        let x5c = Self.pki.x5c.map { "\"\($0)\"" }.joined(separator: ",")
        let token = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256","b64":\#(b64),"x5c":[\#(x5c)]}"#, payloadJSON: TestPayloads.transaction(),
            key: Self.pki.leaf.key)
        let (result, record) = try Self.run([], token)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(record["status"] as? String == "invalid-signature")
        let detail = Self.check("crit", in: record)?["detail"] as? String ?? ""
        #expect(
            detail.contains("b64: \(b64.replacingOccurrences(of: "\"", with: "")) (RFC 7797's unencoded payload)"),
            "\(detail)")
        // `"b64": true` is the default, said aloud: accepted.
        let plain = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256","b64":true,"x5c":[\#(x5c)]}"#, payloadJSON: TestPayloads.transaction(),
            key: Self.pki.leaf.key)
        #expect(try Self.run([], plain).0.status == 0)
    }

    /// A notification whose `data` is present but not an object decides its identity from
    /// `data` (nothing in it), never from `summary`, which came next.
    @Test(arguments: ["5", "[]", #""x""#])
    func aNotificationDataThatIsNotAnObjectIsNotSkipped(data: String) throws {
        let payload =
            #"{"notificationType":"TEST","notificationUUID":"00000000-0000-4000-8000-000000000001","data":\#(data),"#
            + #""summary":{"bundleId":"\#(TestPayloads.bundleId)","environment":"Sandbox"},"#
            + #""version":"2.0","signedDate":\#(TestPayloads.signedDate)}"#
        let token = Self.pki.sign(payloadJSON: payload)
        let (result, record) = try Self.run(["--bundle-id", TestPayloads.bundleId, "--environment", "Sandbox"], token)
        #expect(result.status == 4, "\(result.stdout)")
        let detail = Self.check("bundle-id", in: record)?["detail"] as? String ?? ""
        #expect(detail.contains("data.bundleId"), "\(detail)")
        // With `data` absent, `summary` decides, as before.
        let summaryOnly = payload.replacingOccurrences(of: #""data":\#(data),"#, with: "")
        #expect(
            try Self.run(["--bundle-id", TestPayloads.bundleId], Self.pki.sign(payloadJSON: summaryOnly)).0.status == 0)
    }

    /// A transaction that also carries an app transaction's `receiptType` is ambiguous: an
    /// unknown payload, with a note naming both kinds, never an app transaction that passes
    /// `--environment` by the member another kind carries.
    @Test func aPayloadWithTwoKindsMembersIsNotGuessed() throws {
        let payload = TestPayloads.transaction(environment: "Sandbox").replacingOccurrences(
            of: "{", with: #"{"receiptType":"Production","#)
        let token = Self.pki.sign(payloadJSON: payload)
        let (result, record) = try Self.run(["--environment", "Production"], token)
        #expect(result.status == 3, "\(result.stdout)")
        #expect(record["type"] as? String == "unknown")
        #expect(record["status"] as? String == "wrong-environment")
        let notes = record["notes"] as? [String] ?? []
        #expect(
            notes.contains {
                $0.contains("app transaction (receiptType) and transaction (transactionId)")
            }, "\(notes)")
        // Named with --type, it is the transaction it says it is.
        let (named, namedRecord) = try Self.run(["--type", "transaction", "--environment", "Sandbox"], token)
        #expect(named.status == 0, "\(named.stdout)")
        #expect(namedRecord["type"] as? String == "transaction")
    }
}
