import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// A receipt's text and content are read in one pass each (`ReceiptBase64.decode`,
/// `ReceiptAttributeSet.walk`, `ReceiptValue.primitive`): each must read exactly what the
/// general reader it stands in front of reads (Foundation's base64 decoding; OpenSSL's
/// `d2i_ASN1_SET_ANY`, `d2i_ASN1_SEQUENCE_ANY` and `d2i_ASN1_TYPE`), and step aside, never
/// differ, where it does not.
@Suite struct ReceiptReadingTests {
    // MARK: Base64

    /// What `ReceiptBase64.decode` did before its one pass: whitespace dropped, padding
    /// restored, Foundation's `Data(base64Encoded:)`.
    static func foundationDecode(_ text: [UInt8]) -> Result<[UInt8], ReceiptBase64.DecodingError> {
        let maximumCharacters = (CMSSignedData.maximumSize + 2) / 3 * 4
        var compact: [UInt8] = []
        for byte in text where !(byte == 0x20 || (0x09...0x0D).contains(byte)) {
            guard compact.count < maximumCharacters else {
                return .failure(.tooLarge(limit: CMSSignedData.maximumSize))
            }
            compact.append(byte)
        }
        guard !compact.isEmpty, compact.count % 4 != 1 else { return .failure(.notBase64) }
        while compact.count % 4 != 0 { compact.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(compact)) else { return .failure(.notBase64) }
        return .success(Array(data))
    }

    /// Whether the characters (whitespace dropped, padding restored) are whole groups of the
    /// alphabet, the last ending in at most two `=`: RFC 4648's padding, the only padding the
    /// one pass accepts.
    static func paddedOnlyAtTheEnd(_ text: [UInt8]) -> Bool {
        var compact = text.filter { !($0 == 0x20 || (0x09...0x0D).contains($0)) }
        while compact.count % 4 != 0 { compact.append(UInt8(ascii: "=")) }
        guard let first = compact.firstIndex(of: UInt8(ascii: "=")) else { return true }
        return compact.count - first <= 2 && compact[first...].allSatisfy { $0 == UInt8(ascii: "=") }
    }

    static func decode(_ text: [UInt8]) -> Result<[UInt8], ReceiptBase64.DecodingError> {
        Result { () throws(ReceiptBase64.DecodingError) in try ReceiptBase64.decode(text) }
    }

    @Test func base64OfEveryLengthAndWrappingDecodesAsFoundationDoes() throws {
        var random = SplitMix(seed: 1)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let data = Data(bytes)
            for text in [
                data.base64EncodedString(), data.base64EncodedString(options: .lineLength64Characters),
                data.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]),
                data.base64EncodedString().replacingOccurrences(of: "=", with: ""),
                "  \t" + data.base64EncodedString() + "\n\u{0B}\u{0C}",
            ] {
                let text = Array(text.utf8)
                #expect(Self.decode(text) == Self.foundationDecode(text), "\(length) bytes: \(text)")
                if length > 0 { #expect(try ReceiptBase64.decode(text) == bytes) }
            }
        }
    }

    /// Random texts of base64 characters, padding, whitespace and other bytes: where the one pass
    /// decodes, Foundation decodes the same bytes; where only Foundation decodes, padding stood
    /// somewhere RFC 4648 does not put it (Foundation reads `====` as one zero byte and `QU=D`
    /// as two bytes: the one pass refuses both, as not base64).
    @Test func randomTextsDecodeAsFoundationDoesOrHaveMisplacedPadding() {
        var random = SplitMix(seed: 2)
        let alphabet = Array("AQgw+/9z=  \n\t*-_".utf8)
        var onlyFoundation = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...14, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let ours = Self.decode(text)
            let foundation = Self.foundationDecode(text)
            switch (ours, foundation) {
            case (.success(let mine), .success(let theirs)):
                #expect(mine == theirs, "\(String(decoding: text, as: UTF8.self))")
            case (.success, .failure):
                Issue.record("only the one pass decodes \(String(decoding: text, as: UTF8.self))")
            case (.failure(let mine), .success):
                onlyFoundation += 1
                #expect(mine == .notBase64)
                #expect(!Self.paddedOnlyAtTheEnd(text), "\(String(decoding: text, as: UTF8.self))")
            case (.failure(let mine), .failure(let theirs)):
                #expect(mine == theirs, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(onlyFoundation > 0, "the generator makes misplaced padding")
    }

    @Test func misplacedPaddingIsNotBase64() {
        for text in ["====", "QU=D", "QQ=A", "QQ==QQ==", "QUJD====", "Q===", "QUJDQ="] {
            #expect(Self.decode(Array(text.utf8)) == .failure(.notBase64), "\(text)")
        }
        #expect(Self.decode(Array("QR==".utf8)) == .success([0x41]), "unused bits are ignored, as Foundation does")
    }

    @Test func tooManyCharactersAreRefusedWhateverTheyAre() {
        let maximum = (CMSSignedData.maximumSize + 2) / 3 * 4
        for filler in [UInt8(ascii: "A"), UInt8(ascii: "*")] {
            let text = [UInt8](repeating: filler, count: maximum + 1)
            #expect(Self.decode(text) == .failure(.tooLarge(limit: CMSSignedData.maximumSize)))
            #expect(Self.foundationDecode(text) == .failure(.tooLarge(limit: CMSSignedData.maximumSize)))
        }
        var text = [UInt8](repeating: UInt8(ascii: "A"), count: maximum)
        #expect((try? ReceiptBase64.decode(text))?.count == maximum / 4 * 3)
        text += [UInt8](repeating: 0x0A, count: 1000)
        #expect((try? ReceiptBase64.decode(text))?.count == maximum / 4 * 3, "whitespace is not counted")
    }

    @Test func aLineCensusCountsAsItsPredicatesDo() {
        var random = SplitMix(seed: 3)
        for _ in 0..<5_000 {
            let line = (0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...127, using: &random)
            }
            let census = LegacyReceipt.Census(line)
            #expect(census.characters == line.count { LegacyReceipt.base64Value($0) != nil })
            #expect(census.padded == line.contains(UInt8(ascii: "=")))
            #expect(census.onlyBase64Text == line.allSatisfy(LegacyReceipt.isBase64Text))
            #expect(census.hasText == line.contains { !InputScanner.isWhitespace($0) })
        }
    }

    // MARK: Attributes

    enum Reading: Equatable {
        case attributes([ReceiptAttribute])
        case failed(ReceiptPayload.DecodingError)
    }

    static func read(_ der: [UInt8]) -> Reading {
        do {
            return .attributes(try ReceiptAttributeSet.decode(der, limit: 20, what: "the receipt"))
        } catch {
            return .failed(error)
        }
    }

    static func readWhole(_ der: [UInt8]) -> Reading {
        do {
            return .attributes(try ReceiptAttributeSet.decodeWhole(der, limit: 20, what: "the receipt"))
        } catch {
            return .failed(error)
        }
    }

    /// Every real receipt's content and in-app entries: the walk reads them (it does not step
    /// aside) and reads what OpenSSL's decoders read.
    @Test(arguments: ReceiptTests.appStore.map(\.file) + ReceiptTests.xcode.map(\.file))
    func realReceiptsAreWalkedAsOpenSSLDecodesThem(_ file: String) throws {
        let content = try CMSSignedData(bytes: ReceiptTests.receipt(file)).content
        var sets = [content]
        let whole = try ReceiptAttributeSet.decodeWhole(content, limit: 10_000, what: "the receipt")
        sets += whole.filter { $0.type == ReceiptPayload.Field.inApp }.map(\.bytes)
        for set in sets {
            let walked = try #require(ReceiptAttributeSet.walk(set, limit: 10_000))
            #expect(walked == (try ReceiptAttributeSet.decodeWhole(set, limit: 10_000, what: "x")))
            for attribute in walked where ReceiptValue.primitive(attribute.bytes) != nil {
                #expect(ReceiptValue(der: attribute.bytes) == ReceiptValue(decodingWhole: attribute.bytes))
            }
        }
    }

    /// A small SET of attributes spoiled at random, byte by byte and by truncation: the reading
    /// (attributes, or the error and its words) is OpenSSL's, walked or not.
    @Test func spoiledSetsReadAsOpenSSLReadsThem() {
        var random = SplitMix(seed: 4)
        let set = TestReceiptAttribute.setDER([
            TestReceiptAttribute(type: 2, value: .utf8String("com.example.app")),
            TestReceiptAttribute(type: 12, value: .ia5String("2024-01-01T00:00:00Z")),
            TestReceiptAttribute(type: 1701, version: 300, value: .integer(1)),
            TestReceiptAttribute(type: 255, value: .raw([0x01, 0x02])),
        ])
        #expect(ReceiptAttributeSet.walk(set, limit: 20) != nil)
        var walkedSpoiled = 0
        for _ in 0..<20_000 {
            var spoiled = set
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<spoiled.count, using: &random)
                spoiled[index] =
                    Bool.random(using: &random)
                    ? UInt8.random(in: 0...255, using: &random)
                    : spoiled[index] ^ (1 << UInt8.random(in: 0...7, using: &random))
            }
            if Int.random(in: 0..<8, using: &random) == 0 {
                spoiled = Array(spoiled.prefix(Int.random(in: 0...spoiled.count, using: &random)))
            }
            if ReceiptAttributeSet.walk(spoiled, limit: 20) != nil { walkedSpoiled += 1 }
            #expect(Self.read(spoiled) == Self.readWhole(spoiled), "\(spoiled.hexString())")
        }
        #expect(walkedSpoiled > 100, "spoiled sets the walk still reads (a changed value or type) are compared too")
    }

    /// INTEGER types and versions of every shape: the walk reads in place only what OpenSSL
    /// reads the same, and leaves the others (negative, padded, too long, empty) to it.
    @Test func integersOfEveryShapeReadAsOpenSSLReadsThem() {
        let contents: [[UInt8]] = [
            [0x00], [0x01], [0x7F], [0x00, 0x80], [0x00, 0x01], [0x80], [0xFF], [0xFF, 0x7F], [],
            [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08], [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
            [0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
        ]
        for content in contents {
            let integer = [0x02, UInt8(content.count)] + content
            for (type, version) in [(integer, [0x02, 0x01, 0x01] as [UInt8]), ([0x02, 0x01, 0x02], integer)] {
                let body = type + version + [0x04, 0x00]
                let set = [0x31, UInt8(body.count + 2), 0x30, UInt8(body.count)] + body
                #expect(Self.read(set) == Self.readWhole(set), "\(set.hexString())")
            }
            #expect(ReceiptValue(der: integer) == ReceiptValue(decodingWhole: integer), "\(integer.hexString())")
        }
    }

    /// Values of every tag and shape, spoiled at random: read in place or not, the same value.
    @Test func valuesReadAsD2IASN1TypeReadsThem() {
        var random = SplitMix(seed: 5)
        let values: [[UInt8]] = [
            [0x0C, 0x03] + Array("abc".utf8), [0x16, 0x02] + Array("4+".utf8), [0x0C, 0x02, 0xC3, 0x28],
            [0x16, 0x01, 0xE9], [0x02, 0x02, 0x06, 0xA6], [0x0C, 0x00], [0x16, 0x00], [0x04, 0x01, 0x00],
            [0x01, 0x01, 0xFF], [0x05, 0x00], [0x2C, 0x80, 0x04, 0x01, 0x41, 0x00, 0x00], [0x1F, 0x0C, 0x01, 0x41],
        ]
        for value in values {
            #expect(ReceiptValue(der: value) == ReceiptValue(decodingWhole: value), "\(value.hexString())")
            for _ in 0..<2_000 {
                var spoiled = value
                let index = Int.random(in: 0..<spoiled.count, using: &random)
                spoiled[index] = UInt8.random(in: 0...255, using: &random)
                if Bool.random(using: &random) { spoiled.append(UInt8.random(in: 0...255, using: &random)) }
                #expect(ReceiptValue(der: spoiled) == ReceiptValue(decodingWhole: spoiled), "\(spoiled.hexString())")
            }
        }
    }
}
