import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// StoreKit 1 transaction receipts: Apple's fixture and a receipt of the fuller shape devices
/// wrote are recognised wherever inputs are scanned and decoded, never verified (`unverifiable`),
/// never granting access; each way one can be broken is malformed, saying what and the fix.
@Suite struct TransactionReceiptTests {
    static func apple() throws -> String {
        String(decoding: try Fixtures.bytes("Tests/Vectors/apple/legacyTransaction"), as: UTF8.self)
    }

    /// The one item `text` is scanned as, inspected: a transaction receipt's, or a malformed one's.
    static func inspect(
        _ text: String, origin: String = "in", _ configure: (inout VerificationOptions) -> Void = { _ in }
    ) -> [Inspection] {
        var options = VerificationOptions()
        options.now = Fixtures.now
        configure(&options)
        let verifier = Verifier(options: options)
        return InputScanner.scan(Array(text.utf8), origin: origin).map { item in
            switch item {
            case .transactionReceipt(let source, let propertyList):
                verifier.inspectTransactionReceipt(propertyList, source: source)
            case .malformed(let source, let reason): .malformed(source: source, reason: reason)
            case .token(let source, _), .receipt(let source, _), .realtimeResponse(let source, _):
                .malformed(source: source, reason: "not one")
            }
        }
    }

    static func payload(_ inspection: Inspection) -> String {
        String(decoding: inspection.envelope?.sections.payload.bytes ?? [], as: UTF8.self)
    }

    // MARK: Decoded

    @Test func applesFixtureDecodesToItsTransactionID() throws {
        let results = Self.inspect(try Self.apple())
        try #require(results.count == 1)
        let result = results[0]
        #expect(result.status == .unverifiable)
        #expect(result.kind == .transactionReceipt)
        #expect(result.envelope?.name == "transactionReceipt")
        #expect(result.envelope?.kind == .transactionReceipt)
        #expect(result.envelope?.transactionReceipt?.transactionID == "33993399")
        #expect(Self.payload(result) == #"{"transaction-id":"33993399"}"#)
        #expect(result.envelope?.sections.headerTitle == "TRANSACTION RECEIPT")
        #expect(result.envelope?.sections.header.object.isEmpty == true)
        #expect(!result.isAuthentic && result.checkTime == nil && result.chain.isEmpty)
        #expect(result.checks.map(\.name.rawValue) == ["signature"])
        #expect(result.checks.allSatisfy { $0.failed })
        #expect(result.reason.hasPrefix("signature: not verifiable — "))
        #expect(result.reason.hasSuffix("Get Transaction Info for 33993399"), "\(result.reason)")
    }

    @Test func theFullerShapeShowsItsMembersInOrderWithDatesRendered() throws {
        let builder = TransactionReceiptBuilder()
        let results = Self.inspect(builder.base64)
        try #require(results.count == 1)
        let result = results[0]
        #expect(result.status == .unverifiable)
        let receipt = try #require(result.envelope?.transactionReceipt)
        #expect(receipt.purchaseInfo.map(\.key) == builder.purchaseInfo.map(\.key))
        #expect(receipt.transactionID == "2000000000000002")
        // The payload as written, in its order; the section without purchase-info, the signature by its size.
        let written = "{" + builder.purchaseInfo.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        #expect(Self.payload(result) == written)
        let header = try #require(result.envelope?.sections.header)
        #expect(
            String(decoding: header.bytes, as: UTF8.self)
                == #"{"signature":"128 bytes, not verified","environment":"Sandbox","pod":"100","signing-status":"0"}"#)
        // Tables: documented order, dates in milliseconds rendered, the others as written.
        let display = try #require(result.display)
        #expect(
            display.fields.prefix(7).map(\.dottedPath) == [
                "transaction-id", "original-transaction-id", "product-id", "quantity", "purchase-date",
                "purchase-date-ms", "purchase-date-pst",
            ])
        let fields = Dictionary(uniqueKeysWithValues: display.fields.map { ($0.dottedPath, $0) })
        #expect(fields["purchase-date-ms"]?.rendered == "2023-10-03T13:57:42.000Z")
        #expect(fields["original-purchase-date-ms"]?.rendered == "2023-10-03T13:57:42.000Z")
        #expect(fields["purchase-date-pst"]?.rendered == nil)
        #expect(fields["purchase-date"]?.raw == "2023-10-03 13:57:42 Etc/GMT")
        #expect(display.unknownFields.isEmpty, "every member devices wrote is documented")
        let summary = try #require(result.summary)
        #expect(
            summary.hasPrefix(
                "StoreKit 1 transaction receipt for com.example.app.pro (com.example.app), transaction "
                    + "2000000000000002, purchased 2023-10-03; no access decision"),
            "\(summary)")
    }

    /// Dates in milliseconds are range-checked as every App Store date is; text that is no such
    /// number is shown as written, flagged where the name says milliseconds.
    @Test func millisecondsAreRangeChecked() throws {
        #expect(Timestamp.date(millisecondsText: "1696341462000") == Date(timeIntervalSince1970: 1_696_341_462))
        #expect(Timestamp.date(millisecondsText: "-1000") == Date(timeIntervalSince1970: -1))
        for text in ["", "-", "253402300800000", "-62135596800001", "1e12", "１２", "1234567890123456", " 1", "0x10"] {
            #expect(Timestamp.date(millisecondsText: text) == nil, "\(text)")
        }
        var builder = TransactionReceiptBuilder()
        builder.purchaseInfo = [
            ("purchase-date-ms", "99999999999999999999"), ("expires-date", "1696341462000"),
            ("cancellation-date-ms", "soon"), ("expires-date-formatted", "2023-10-03 13:57:42 Etc/GMT"),
        ]
        let display = try #require(Self.inspect(builder.base64).first?.display)
        let fields = Dictionary(uniqueKeysWithValues: display.fields.map { ($0.dottedPath, $0) })
        #expect(fields["purchase-date-ms"]?.rendered == nil)
        #expect(fields["purchase-date-ms"]?.flag?.hasPrefix("expected milliseconds since 1970") == true)
        #expect(fields["cancellation-date-ms"]?.flag?.hasPrefix("expected milliseconds since 1970") == true)
        #expect(fields["expires-date"]?.rendered == "2023-10-03T13:57:42.000Z")
        #expect(fields["expires-date-formatted"]?.flag == nil && fields["expires-date-formatted"]?.rendered == nil)
    }

    // MARK: Recognised

    /// One per line, wrapped at 76 columns, unpadded, in a JSON document's string, with
    /// whitespace around: each is one transaction receipt, and a JWS or receipt beside it stays one.
    @Test func recognisedWhereverInputsAreScanned() throws {
        let apple = try Self.apple()
        let full = TransactionReceiptBuilder().base64
        let wrapped = try #require(Data(base64Encoded: full)).base64EncodedString(options: .lineLength76Characters)
        let unpadded = apple.replacingOccurrences(of: "=", with: "")
        let inputs = [
            apple + "\n" + full + "\n" + unpadded + "\n",
            wrapped + "\n" + apple,
            "  \t" + apple + "  \n\n",
            #"{"transactionReceipt":""# + apple + #"","other":[""# + full + #""]}"#,
            #"{"wrapped":""# + wrapped.replacingOccurrences(of: "\r\n", with: "\\n") + #""}"#,
        ]
        let counts = [3, 2, 1, 2, 1]
        for (input, count) in zip(inputs, counts) {
            let results = Self.inspect(input)
            #expect(results.count == count, "\(input.prefix(80))")
            #expect(results.allSatisfy { $0.status == .unverifiable }, "\(results.map(\.reason))")
        }
        let sources = Self.inspect(inputs[3], origin: "body.json").map(\.source)
        #expect(sources == ["body.json: other[0]", "body.json: transactionReceipt"])
        // What is not one: a JWS, a receipt, base64 of JSON, of other text.
        #expect(TransactionReceiptText.recognise(Array(apple.utf8)) == .openStep)
        for other in [
            "eyJhbGciOiJFUzI1NiJ9.e30.AAAA", "MIIT8QYJKoZIhvcNAQcCoIIT4jCCE94CAQExCzAJBgUrDgMCGgUAMIID",
            Data("{\n\"a\": 1}".utf8).base64EncodedString(), Data("{ a b }".utf8).base64EncodedString(),
            Data("plain text".utf8).base64EncodedString(), "everything is fine",
        ] {
            #expect(TransactionReceiptText.recognise(Array(other.utf8)) == nil, "\(other)")
        }
    }

    /// `--exact`: one transaction receipt on its line is the one item; wrapped, several or with
    /// text after it is refused, as for a receipt.
    @Test func exactInputTakesOneTransactionReceipt() throws {
        let apple = try Self.apple()
        guard
            case .success(.transactionReceipt(let source, let list)) = ExactInput.item(
                in: Array(apple.utf8), source: "in")
        else {
            Issue.record("not one transaction receipt")
            return
        }
        #expect(source == "in")
        #expect(try TransactionReceiptEnvelope(propertyList: list).transactionID == "33993399")
        let full = TransactionReceiptBuilder().base64
        let wrapped = try #require(Data(base64Encoded: full)).base64EncodedString(options: .lineLength76Characters)
        #expect(
            ExactInput.item(in: Array(wrapped.utf8), source: "in")
                == .failure(.wrapped(.transactionReceipt, pieces: wrapped.split(separator: "\r\n").count)))
        #expect(
            ExactInput.item(in: Array((apple + " " + full).utf8), source: "in")
                == .failure(.several(2, .transactionReceipt)))
        #expect(
            ExactInput.item(in: Array((apple + " and more").utf8), source: "in")
                == .failure(.surrounded(.transactionReceipt, before: nil, after: "and more")))
    }

    // MARK: Refused

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    /// A receipt whose purchase-info is `purchaseInfo` as written (base64 of it unless `raw`).
    static func receipt(purchaseInfo: String, raw: Bool = false) -> String {
        base64(TransactionReceiptBuilder().outerText(purchaseInfoValue: raw ? purchaseInfo : base64(purchaseInfo)))
    }

    /// Every way one can be broken: malformed (exit 5), its reason naming what and the fix.
    @Test(arguments: [
        ("the outer base64 broken", "ewoicHVyY2hhc2UtaW5mbyIgPSA*iZXdvaWRISmhibk5o", "is not standard base64 text"),
        (
            "purchase-info not base64", receipt(purchaseInfo: "not*base64", raw: true),
            "purchase-info is not standard base64"
        ),
        (
            "purchase-info a dictionary", base64("{ \"purchase-info\" = { a = b; }; }"),
            "purchase-info is a dictionary, expected base64 text"
        ),
        (
            "no purchase-info", base64("{ \"signature\" = \"AAAA\"; \"pod\" = \"100\"; }"),
            "has no purchase-info member (its members: \"pod\", \"signature\")"
        ),
        (
            "purchase-info twice", base64("{ \"purchase-info\" = \"e30=\";\n\"purchase-info\" = \"e30=\"; }"),
            "names \"purchase-info\" twice in one dictionary (line 2)"
        ),
        (
            "purchase-info not a dictionary", receipt(purchaseInfo: "( \"33993399\" )"),
            "purchase-info's property list is an array, expected a dictionary"
        ),
        (
            "a non-string value", receipt(purchaseInfo: "{ \"transaction-id\" = <0fab>; }"),
            "purchase-info's property list holds data (<…>) on line 1"
        ),
        (
            "purchase-info binary", receipt(purchaseInfo: "bplist00\u{01}"),
            "purchase-info holds a binary (bplist00) property list, not OpenStep text"
        ),
        (
            "purchase-info XML", receipt(purchaseInfo: "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>"),
            "purchase-info holds an XML property list"
        ),
        (
            "a binary property list", base64("bplist00\u{01}\u{02}"),
            "a binary (bplist00) property list in base64, not a StoreKit 1 transaction receipt"
        ),
        (
            "an XML property list",
            base64(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x\">\n<plist version=\"1.0\"><dict/></plist>"
            ), "an XML property list in base64"
        ),
        (
            "too deep",
            base64("{ a = " + String(repeating: "(", count: 16) + String(repeating: ")", count: 16) + "; }"),
            "nests dictionaries and arrays more than 16 deep"
        ),
        (
            "too deep inside", receipt(purchaseInfo: "{ a = " + String(repeating: "{b=", count: 16)),
            "purchase-info's property list nests dictionaries and arrays more than 16 deep"
        ),
        (
            "not OpenStep", base64("{ \"purchase-info\" = \"e30=\" }"),
            "property list has '}' on line 1 where ';' after the value belongs"
        ),
    ])
    func refusals(_ name: String, _ text: String, _ expected: String) throws {
        let results = Self.inspect(text)
        try #require(results.count == 1, "\(name)")
        #expect(results[0].status == .malformed, "\(name): \(results[0].reason)")
        #expect(results[0].reason.contains(expected), "\(name): \(results[0].reason)")
        #expect(!results[0].reason.contains("\n"), "\(name): one line")
        let fix = results[0].reason.hasSuffix(
            "give SKPaymentTransaction.transactionReceipt's base64 as the app read it, unchanged")
        #expect(fix, "\(name): the fix is named")
    }

    /// The size is bounded before anything is read: base64 of more than 64 KiB is refused by
    /// its length, a property list over it (decoded) by its size.
    @Test func sizeIsBoundedBeforeReading() throws {
        let limit = TransactionReceiptEnvelope.maximumSize
        var builder = TransactionReceiptBuilder()
        builder.outer[0].value = Data(repeating: 0x41, count: limit).base64EncodedString()
        let over = Self.inspect(builder.base64)
        #expect(over.count == 1 && over[0].status == .malformed)
        #expect(over[0].reason.hasPrefix("a StoreKit 1 transaction receipt's base64 decodes to more than 64 KiB"))
        #expect(throws: TransactionReceiptEnvelope.DecodingError.tooLarge(limit + 1)) {
            try TransactionReceiptEnvelope(propertyList: [UInt8](repeating: 0x20, count: limit + 1))
        }
        #expect(throws: Never.self) {
            try TransactionReceiptEnvelope(
                propertyList: Array(Self.padded(TransactionReceiptBuilder(), to: limit).utf8))
        }
    }

    /// The fuller receipt's text with a comment making it exactly `size` bytes.
    static func padded(_ builder: TransactionReceiptBuilder, to size: Int) -> String {
        let text = builder.outerText()
        return text + "/*" + String(repeating: " ", count: size - text.utf8.count - 4) + "*/"
    }

    // MARK: Never valid, never granting access

    /// The expectations are answered from what the receipt says; `--require-active` fails, and
    /// the first failing check, the signature's, decides: exit 10, never 0 nor 6.
    @Test func expectationsAreComparedButTheSignatureDecides() throws {
        let full = TransactionReceiptBuilder().base64
        let result = try #require(
            Self.inspect(full) {
                $0.expectedBundleId = "com.example.app"
                $0.expectedEnvironment = .production
                $0.expectedAppAppleId = 1_234_567_890
                $0.expectedAccountToken = UUID()
                $0.deviceVerificationID = UUID()
                $0.requireActive = true
                $0.accessAt = Fixtures.now
            }.first)
        #expect(result.status == .unverifiable)
        let checks = Dictionary(uniqueKeysWithValues: result.checks.map { ($0.name.rawValue, $0) })
        #expect(checks["signature"]?.failed == true)
        #expect(checks["bundle-id"]?.passed == true && checks["bundle-id"]?.detail == "bid is com.example.app")
        #expect(checks["app-apple-id"]?.passed == true)
        #expect(
            checks["environment"]?.failed == true
                && checks["environment"]?.detail == "environment is Sandbox, expected Production")
        #expect(checks["active"]?.failed == true)
        #expect(result.notes.contains { $0.hasPrefix("account token not compared") })
        #expect(result.notes.contains { $0.hasPrefix("device not compared") })
        #expect(result.access?.access.grantsAccess == nil)
        #expect(result.access?.access.explanation.contains("ask Apple about its transaction 2000000000000002") == true)
        #expect(!result.decidesAccess)
    }

    /// Under `--no-verify` it is unverified, as every envelope is, and still grants nothing;
    /// with `--require-active`, it is inactive.
    @Test func noVerifyDecodesAndGrantsNothing() throws {
        let unverified = try #require(Self.inspect(try Self.apple()) { $0.verifySignatures = false }.first)
        #expect(unverified.status == .unverified)
        #expect(unverified.checks.isEmpty)
        #expect(unverified.reason.contains("never verifiable"))
        #expect(unverified.access?.access.grantsAccess == nil)
        #expect(unverified.access?.access.explanation.hasPrefix("no access decision for data not verified") == true)
        let active = try #require(
            Self.inspect(try Self.apple()) {
                $0.verifySignatures = false
                $0.requireActive = true
            }.first)
        #expect(active.status == .inactive)
        #expect(active.access?.access.grantsAccess == nil)
    }

    /// The one access model never grants for one, whatever its purchase-info says.
    @Test func theAccessModelNeverGrants() {
        let future = String(Int64(Fixtures.now.timeIntervalSince1970 * 1000) + 86_400_000)
        let payload: [String: JSONValue] = [
            "transaction-id": .string("1"), "expires-date": .string(future), "expiresDate": .integer(Int64(future)!),
            "type": .string("Non-Consumable"), "purchaseDate": .integer(0), "transactionId": .string("1"),
        ]
        let access = Entitlement.decide(.init(kind: .transactionReceipt, payload: payload), at: Fixtures.now)
        #expect(access.grantsAccess == nil)
        #expect(access.state == .undecided)
        #expect(Entitlement.access(kind: .transaction, payload: payload, at: Fixtures.now).grantsAccess == true)
    }
}
