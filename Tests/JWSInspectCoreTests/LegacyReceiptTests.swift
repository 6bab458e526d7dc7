import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Legacy receipts (PKCS#7 SignedData) are recognised raw and in base64, from real receipts
/// of every length form (Tests/Vectors/receipts/README.md); nothing else is taken for one.
@Suite struct LegacyReceiptTests {
    static let receipts = [
        "01-xcode-apple-backyardbirds-empty.der",  // 30 80: BER, indefinite length
        "06-sandbox-griddiary-2014.der",  // 30 82
        "25-sandbox-nutcall-alert-2020-187iap.der",  // 30 83
        "38-sandbox-weeka-2025-g5.der",  // 30 82
    ]

    static func receipt(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes("Tests/Vectors/receipts/\(name)")
    }

    @Test(arguments: receipts)
    func realReceiptsAreRecognisedRawAndInBase64(_ name: String) throws {
        let der = try Self.receipt(name)
        let data = Data(der)
        #expect(LegacyReceipt.looksLike(der))
        let texts = [
            data.base64EncodedString(),
            data.base64EncodedString(options: [
                .lineLength76Characters, .endLineWithCarriageReturn,
                .endLineWithLineFeed,
            ]),
            data.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed]),
            data.base64EncodedString().replacingOccurrences(of: "=", with: ""),  // padding lost
            "\n\n  \t" + data.base64EncodedString() + "\n",  // pasted with whitespace around
            String(data.base64EncodedString().prefix(40)),  // the start is enough
            data.base64EncodedString().enumerated().map { $0 % 4 == 3 ? "\($1) " : "\($1)" }.joined(),
        ]
        for text in texts {
            #expect(LegacyReceipt.looksLike(Array(text.utf8)), "\(text.prefix(48))")
        }
        #expect(LegacyReceipt.looksLike(Array(texts[0].utf8)[...]), "any collection of bytes, a slice too")
    }

    @Test func everyLengthFormIsRecognised() throws {
        // `MIA` for indefinite length (Xcode), `MII` for two length bytes, `MIM` for three.
        let texts = try Self.receipts.map { Data(try Self.receipt($0)).base64EncodedString() }
        #expect(texts.map { $0.prefix(3) } == ["MIA", "MII", "MIM", "MII"])
        #expect(texts.allSatisfy { LegacyReceipt.looksLike(Array($0.utf8)) })
        // Four length bytes (a receipt over 16 MiB) and one (a small SignedData) are taken too.
        let oid = LegacyReceipt.signedDataOID
        #expect(LegacyReceipt.looksLike([0x30, 0x84, 0x01, 0x00, 0x00, 0x00] + oid))
        #expect(LegacyReceipt.looksLike([0x30, 0x81, 0xF0] + oid))
        #expect(!LegacyReceipt.looksLike([0x30, 0x85, 0x01, 0x00, 0x00, 0x00, 0x00] + oid))
        #expect(!LegacyReceipt.looksLike([0x30, 0x7F] + oid))
    }

    @Test func otherThingsAreNotReceipts() throws {
        let der = try Self.receipt(Self.receipts[1])
        var enveloped = der  // the same start with pkcs7-envelopedData (1.2.840.113549.1.7.3)
        enveloped[14] = 0x03
        var randomBytes: [UInt8] = []
        var state: UInt32 = 2_463_534_242
        for _ in 0..<600 {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            randomBytes.append(UInt8(truncatingIfNeeded: state))
        }
        let texts = [
            "",
            " \n\t",
            "MIA",
            "MII",
            Fixtures.pki.sign(payloadJSON: TestPayloads.transaction()),  // a JWS
            // An RSA public key (SubjectPublicKeyInfo): a SEQUENCE too, but not PKCS#7.
            "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
            Fixtures.pki.x5c[2],  // a certificate
            Data(randomBytes).base64EncodedString(),
            Data(enveloped).base64EncodedString(),
            "MII!" + Data(der).base64EncodedString(),  // not base64 from the fourth character
            "-----BEGIN PKCS7-----\n" + Data(der).base64EncodedString(),  // PEM is not what apps send
        ]
        for text in texts {
            #expect(!LegacyReceipt.looksLike(Array(text.utf8)), "\(text.prefix(48))")
        }
        #expect(!LegacyReceipt.looksLike(enveloped))
        #expect(!LegacyReceipt.looksLike(randomBytes))
        #expect(!LegacyReceipt.looksLike(Fixtures.pki.root.der))
    }

    @Test func onlyABoundedPrefixIsRead() throws {
        // A receipt's start followed by 16 MiB of anything is still recognised, without
        // reading the rest; a receipt after 300 bytes of something else is not.
        let start = Array(Data(try Self.receipt(Self.receipts[3])).base64EncodedString().utf8.prefix(64))
        let huge = start + [UInt8](repeating: UInt8(ascii: "!"), count: 16 << 20)
        #expect(LegacyReceipt.looksLike(huge))
        let late = [UInt8](repeating: UInt8(ascii: "A"), count: 300) + start
        #expect(!LegacyReceipt.looksLike(late))
    }
}
