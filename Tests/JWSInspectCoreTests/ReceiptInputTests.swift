import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Malformed, truncated and oversized receipts give typed errors, never a crash; the JSON
/// rendering, the device hash and the active rule.
@Suite struct ReceiptInputTests {
    static func receipt(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes("Tests/Vectors/receipts/\(name)")
    }

    @Test func oversizedInputIsRefusedNamingTheLimit() {
        let bytes = [UInt8](repeating: 0x30, count: CMSSignedData.maximumSize + 1)
        #expect(throws: CMSSignedData.ParseError.tooLarge(size: bytes.count, limit: CMSSignedData.maximumSize)) {
            try CMSSignedData(bytes: bytes)
        }
        #expect(CMSSignedData.ParseError.tooLarge(size: 5, limit: 4).description.contains("limit of 4 bytes"))
    }

    @Test func garbageAndTruncatedInputsAreTypedErrors() throws {
        let real = try Self.receipt("06-sandbox-griddiary-2014.der")
        var inputs: [[UInt8]] = [[], [0x30], [0x30, 0x80], Array("MIIT not a receipt".utf8), Array(real.prefix(40))]
        inputs += stride(from: 1, to: real.count, by: 97).map { Array(real.prefix($0)) }
        for input in inputs {
            #expect(throws: CMSSignedData.ParseError.self) { try CMSSignedData(bytes: input) }
        }
        #expect(throws: CMSSignedData.ParseError.trailingBytes(1)) { try CMSSignedData(bytes: real + [0]) }
    }

    @Test func contentThatIsNotASetOfAttributesIsATypedError() {
        let cases: [[UInt8]] = [
            [], [0x31], [0x04, 0x00], [0x31, 0x03, 0x02, 0x01, 0x00],  // an INTEGER in the SET
            [0x31, 0x05, 0x30, 0x03, 0x02, 0x01, 0x00],  // a SEQUENCE of one INTEGER
            [0x31, 0x00, 0x00],  // trailing byte
        ]
        for der in cases {
            #expect(throws: ReceiptPayload.DecodingError.self) { try ReceiptPayload(der: der) }
        }
        // A type beyond 64 bits.
        let huge: [UInt8] =
            [0x31, 0x14, 0x30, 0x12, 0x02, 0x09, 0x01] + [UInt8](repeating: 0, count: 8)
            + [0x02, 0x01, 0x01, 0x04, 0x02, 0x0C, 0x00]
        #expect(throws: ReceiptPayload.DecodingError.self) { try ReceiptPayload(der: huge) }
    }

    @Test func tooManyAttributesAreRefusedBeforeDecoding() throws {
        let attribute: [UInt8] = [0x30, 0x09, 0x02, 0x01, 0x08, 0x02, 0x01, 0x01, 0x04, 0x01, 0x00]
        let count = ReceiptPayload.maximumAttributes + 1
        let body = Array([[UInt8]](repeating: attribute, count: count).joined())
        let der = [0x31, 0x83, UInt8(body.count >> 16), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
        do {
            _ = try ReceiptPayload(der: der)
            Issue.record("decoded \(count) attributes")
        } catch {
            #expect(error.description.contains("limit of 10000 attributes"), "\(error)")
        }
    }

    @Test func base64TextWrappedOrNotDecodes() throws {
        let der = try Self.receipt("01-xcode-apple-backyardbirds-empty.der")
        let wrapped = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        #expect(try ReceiptBase64.decode(Array(wrapped.utf8)) == der)
        let unpadded = Data(der.dropLast()).base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(try ReceiptBase64.decode(Array(unpadded.utf8)) == Array(der.dropLast()))
        #expect(throws: ReceiptBase64.DecodingError.notBase64) { try ReceiptBase64.decode(Array("MII*".utf8)) }
    }

    @Test func aWrappedReceiptAfterATokenWithoutWholeSignatureIsItsOwnRecord() throws {
        // A line ending in a token without a whole signature (unsigned, truncated) takes the lines
        // of token characters after it as its wrapped pieces; a receipt's base64 lines never are.
        let der = try Self.receipt("01-xcode-apple-backyardbirds-empty.der")
        let wrapped = Data(der).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        for token in ["eyJhbGciOiJub25lIn0.eyJhIjoxfQ.", "eyJhbGciOiJFUzI1NiJ9.e30.AA"] {
            let items = InputScanner.scan(Array((token + "\n\n" + wrapped + "\n").utf8), origin: "in")
            guard items.count == 2, case .receipt(let source, let bytes) = items[1] else {
                Issue.record("a token and a receipt expected: \(items.map(\.kind))")
                continue
            }
            #expect(source == "in:3")
            #expect(bytes.count == der.count && bytes == der)
        }
    }

    /// Base64 without padding ran on into the lines after it while they were base64: a JWS
    /// wrapped by `fold` (its header's lines are standard base64 characters only) was swallowed
    /// (one malformed receipt, no JWS), and receipts one per line became one. A definite-length
    /// receipt ends where its DER length says.
    @Test func anUnpaddedReceiptEndsWhereItsLengthSays() throws {
        let der = try Self.receipt("36-prod-getpure-2024-g5.der")
        #expect(der.count % 3 == 0, "no padding")
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let wrapped = Data(der).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        let folded = WrappedTokenTests.wrapped(token, width: 76)
        #expect(
            folded.utf8.prefix(76 * 3).allSatisfy(LegacyReceipt.isBase64Text),
            "the header's first lines look like base64")
        let lines = wrapped.split(separator: "\n").count
        let items = InputScanner.scan(Array((wrapped + "\n" + folded + "\n").utf8), origin: "in")
        let pieces = (token.count + 75) / 76
        #expect(
            items == [
                .receipt(source: "in:1", der: der),
                .token(source: "in:\(lines + 1) (rejoined from \(pieces) pieces)", token: token),
            ])
        // One a line, unpadded or with the padding taken off.
        let padded = try Self.receipt("38-sandbox-weeka-2025-g5.der")
        #expect(padded.count % 3 != 0)
        let one = Data(der).base64EncodedString()
        let stripped = Data(padded).base64EncodedString().filter { $0 != "=" }
        let text = [one, one, stripped, stripped, one].joined(separator: "\n") + "\n"
        #expect(
            InputScanner.scan(Array(text.utf8), origin: "in") == [
                .receipt(source: "in:1", der: der), .receipt(source: "in:2", der: der),
                .receipt(source: "in:3", der: padded), .receipt(source: "in:4", der: padded),
                .receipt(source: "in:5", der: der),
            ])
    }

    /// Xcode's BER receipts (`MIA`, indefinite length) have no length to go by: a line that
    /// starts another receipt, or a JWS header, is not joined to one.
    @Test func anIndefiniteLengthReceiptEndsWhereAnotherItemStarts() throws {
        let ber = try Self.receipt("01-xcode-apple-backyardbirds-empty.der")
        #expect(ber.prefix(2) == [0x30, 0x80])
        let one = Data(ber).base64EncodedString().filter { $0 != "=" }
        #expect(
            InputScanner.scan(Array((one + "\n" + one + "\n").utf8), origin: "in") == [
                .receipt(source: "in:1", der: ber), .receipt(source: "in:2", der: ber),
            ])
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let wrapped = Data(ber).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
            .filter { $0 != "=" }
        let lines = wrapped.split(separator: "\n").count
        let text = wrapped + "\n" + WrappedTokenTests.wrapped(token, width: 76) + "\n" + wrapped + "\n"
        let pieces = (token.count + 75) / 76
        #expect(
            InputScanner.scan(Array(text.utf8), origin: "in") == [
                .receipt(source: "in:1", der: ber),
                .token(source: "in:\(lines + 1) (rejoined from \(pieces) pieces)", token: token),
                .receipt(source: "in:\(lines + 1 + pieces)", der: ber),
            ])
    }

    @Test func jsonUsesVerifyReceiptNamesAndKeepsUnknownTypes() throws {
        let container = try CMSSignedData(bytes: Self.receipt("01-xcode-apple-backyardbirds-empty.der"))
        let json = try ReceiptPayload(der: container.content).json
        #expect(json["receipt_type"] == .string("Xcode"))
        #expect(json["bundle_id"] == .string("com.example.naturelab.backyardbirds.example"))
        #expect(json["application_version"] == .string("1"))
        #expect(json["receipt_creation_date"] == .string("2023-10-19T01:18:54Z"))
        #expect(json["expiration_date"] == .string("4001-01-01T00:00:00Z"))
        #expect(json["opaque_value"] == .string(Data([0xD1, 0xBC, 0xFE, 0xCF, 4, 0, 0, 0]).base64EncodedString()))
        #expect(json["unknown_1"] == .string("020100"))
        #expect(json["unknown_8"] == .string("1600"))
        #expect(json["in_app"] == .array([]))
    }

    @Test func inAppJSONKeepsIntegersAndDatesAsSigned() throws {
        let container = try CMSSignedData(bytes: Self.receipt("36-prod-getpure-2024-g5.der"))
        let payload = try ReceiptPayload(der: container.content)
        guard case .array(let entries) = payload.json["in_app"], let first = entries.first else {
            Issue.record("in_app is not a non-empty array")
            return
        }
        #expect(entries.count == 4)
        #expect(first["quantity"] == .integer(1))
        #expect(first["web_order_line_item_id"] == .integer(340_000_558_053_130))
        #expect(first["purchase_date"] == .string("2023-05-09T23:20:55Z"))
        #expect(first["cancellation_date"] == .string(""))
        #expect(first["unknown_1709"] == .string("0c00"))
    }

    @Test func deviceHashIsSHA1OfDeviceOpaqueValueAndBundleIDDER() throws {
        let container = try CMSSignedData(bytes: Self.receipt("06-sandbox-griddiary-2014.der"))
        let payload = try ReceiptPayload(der: container.content)
        let device = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let hash = try #require(payload.deviceHash(identifierForVendor: device))
        let uuid = withUnsafeBytes(of: device.uuid) { Array($0) }
        let input = uuid + (payload.opaqueValue ?? []) + (payload.bundleIDBytes ?? [])
        #expect(hash == ReceiptDigest.sha1(input))
        #expect(ReceiptDigest.sha1(Array("abc".utf8)).hexString() == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(!payload.matchesDevice(identifierForVendor: device))  // the real device is unknown
    }

    @Test func activeEntriesAreUnexpiredUncancelledSubscriptionsOrNonConsumables() throws {
        let container = try CMSSignedData(bytes: Self.receipt("36-prod-getpure-2024-g5.der"))
        let payload = try ReceiptPayload(der: container.content)
        let first = try #require(payload.inApp.first)
        let during = try #require(ReceiptDate.parse("2023-05-12T00:00:00Z"))
        #expect(first.isActive(at: during))
        #expect(!first.isActive(at: try #require(ReceiptDate.parse("2023-05-17T00:00:00Z"))))
        #expect(!first.isActive(at: try #require(ReceiptDate.parse("2023-05-01T00:00:00Z"))))  // not yet bought
        #expect(payload.activeEntries(at: ReceiptTests.later).isEmpty)
    }

    @Test(arguments: [
        ("2020-11-29T19:21:44Z", 1_606_677_704.0), ("2023-10-19T03:18:54+0200", 1_697_678_334.0),
        ("2023-10-19T03:18:54+02:00", 1_697_678_334.0), ("2023-10-18T20:18:54-05:00", 1_697_678_334.0),
        ("2020-11-29T19:21:44.5Z", 1_606_677_704.5),
    ])
    func rfc3339DatesParse(_ text: String, _ seconds: Double) {
        #expect(ReceiptDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "", "2020-13-01T00:00:00Z", "2021-02-29T00:00:00Z", "2020-11-29T24:00:00Z", "2020-11-29T19:21:44",
        "2020-11-29T19:21:44+2400", "0000-01-01T00:00:00Z", "2020-11-29T19:21:44.Z", "99999-01-01T00:00:00Z",
    ])
    func malformedDatesAreNil(_ text: String) {
        #expect(ReceiptDate.parse(text) == nil)
    }
}
