import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// Receipts minted by the test PKI, judged by the `openssl` command-line tool: every failure
/// class of issue 15 is mintable and openssl sees what the minter meant.
@Suite(.timeLimit(.minutes(10))) struct ReceiptMintingTests {
    /// One chain and one StoreKit signer for the whole suite (RSA key generation is slow).
    static let chain = TestReceiptChain()
    static let storeKit = StoreKitTestingSigner()
    /// The default creation date as `-attime` wants it (seconds since 1970).
    static let creationEpoch = String(Int(ReceiptBuilder.defaultCreationDate.timeIntervalSince1970))

    /// A receipt with two in-app entries (an expired subscription and a non-consumable) and an unknown field.
    static func richReceipt() -> ReceiptBuilder {
        var receipt = ReceiptBuilder(receiptType: ReceiptBuilder.production)
        receipt.expirationDate = Date(timeIntervalSince1970: 1_767_225_600)
        receipt.inApp = [
            InAppEntry(
                productID: "com.example.pro.monthly", transactionID: "2000000000000001",
                purchaseDate: Date(timeIntervalSince1970: 1_733_011_200),
                expiresDate: Date(timeIntervalSince1970: 1_735_689_600), webOrderLineItemID: 2_000_000_000_000_002,
                isTrialPeriod: true),
            InAppEntry(
                productID: "com.example.lifetime", transactionID: "2000000000000003",
                purchaseDate: Date(timeIntervalSince1970: 1_733_011_200),
                extraAttributes: [TestReceiptAttribute(type: 1722, value: .integer(7))]),
        ]
        receipt.extraAttributes = [TestReceiptAttribute(type: 8, value: .ia5String("2025-01-01T00:00:00Z"))]
        return receipt
    }

    /// `openssl cms -verify` of `receipt` against `root` at `epoch`; the content goes to `content.bin`.
    static func verify(
        _ receipt: [UInt8], root: TestCertificate, at epoch: String = creationEpoch,
        in openssl: borrowing OpenSSLCommand,
        extra: [String] = []
    ) throws -> OpenSSLCommand.Outcome {
        try openssl.write(receipt, to: "receipt.der")
        try openssl.write(root.pem, to: "root.pem")
        let arguments =
            [
                "cms", "-verify", "-inform", "DER", "-binary", "-in", "receipt.der", "-CAfile", "root.pem",
                "-purpose", "any", "-attime", epoch, "-out", "content.bin",
            ] + extra
        return try openssl.run(arguments)
    }

    /// Upper-case hex, as `openssl asn1parse` dumps OCTET STRINGs.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }

    @Test(arguments: [DigestAlgorithm.sha256, .sha1])
    func appStoreReceiptVerifiesAtItsCreationDate(digest: DigestAlgorithm) throws {
        let openssl = try OpenSSLCommand()
        let content = Self.richReceipt().der()
        let receipt = Self.chain.sign(content, digest: digest)
        let outcome = try Self.verify(receipt, root: Self.chain.root, in: openssl)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.contains("Verification successful"))
        #expect(try openssl.read("content.bin") == content)
        #expect(ReceiptMinter.content(of: receipt) == content)
        #expect(receipt.prefix(2) == [0x30, 0x82], "DER with a definite length")
    }

    @Test func contentFieldsAreWhatOpenSSLParses() throws {
        let openssl = try OpenSSLCommand()
        let builder = Self.richReceipt()
        try openssl.write(builder.der(), to: "content.bin")
        let parsed = try openssl.run("asn1parse", "-inform", "DER", "-in", "content.bin")
        #expect(parsed.status == 0, "\(parsed.errors)")
        #expect(parsed.output.hasPrefix("    0:d=0  hl=") && parsed.output.contains("cons: SET"))
        // Every attribute's OCTET STRING holds the DER of its value: UTF8String 0C, IA5String 16, INTEGER 02.
        for attribute in builder.attributes where attribute.type != ReceiptBuilder.Field.inApp {
            #expect(parsed.output.contains("[HEX DUMP]:" + Self.hex(attribute.value.octets)), "type \(attribute.type)")
        }
        #expect(parsed.output.contains(Self.hex([0x0c, 0x0a] + Array("Production".utf8))))
        #expect(parsed.output.contains(Self.hex([0x16, 0x14] + Array("2025-01-01T00:00:00Z".utf8))))
        // The in-app entries parse as nested SETs with their types (1701 = 0x06A5, 1722 = 0x06BA).
        let entry = builder.inApp[1].attribute.value.octets
        try openssl.write(entry, to: "entry.bin")
        let inApp = try openssl.run("asn1parse", "-inform", "DER", "-in", "entry.bin")
        #expect(inApp.status == 0, "\(inApp.errors)")
        #expect(inApp.output.contains("INTEGER           :06A5") && inApp.output.contains("INTEGER           :06BA"))
        #expect(inApp.output.contains(Self.hex([0x16, 0x00])), "an empty IA5String for no cancellation")
    }

    @Test(arguments: [false, true])
    func deviceHashIsSHA1OfIdentifierOpaqueValueAndBundleID(wrong: Bool) throws {
        let openssl = try OpenSSLCommand()
        var builder = ReceiptBuilder()
        builder.wrongDeviceHash = wrong
        let input =
            ReceiptBuilder.uuidBytes(builder.deviceID) + builder.opaqueValue
            + TestReceiptValue.utf8String(builder.bundleID).octets
        try openssl.write(input, to: "hash-input.bin")
        let digest = try openssl.run("dgst", "-sha1", "-r", "hash-input.bin")
        let expected = String(digest.output.prefix(40)).uppercased()
        #expect(digest.status == 0 && expected.count == 40)
        #expect((Self.hex(builder.sha1Hash) == expected) == !wrong)
        #expect(ReceiptBuilder.uuidBytes(builder.deviceID).prefix(2) == [0x3d, 0x9b])
    }

    @Test func tamperedContentFailsTheSignature() throws {
        let openssl = try OpenSSLCommand()
        let receipt = Self.chain.sign(ReceiptBuilder().der())
        let tampered = ReceiptMinter.tamperingContent(receipt, at: 5)
        #expect(zip(receipt, tampered).filter { $0 != $1 }.count == 1)
        let outcome = try Self.verify(tampered, root: Self.chain.root, in: openssl)
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("Verification failure"), "\(outcome.errors)")
    }

    @Test func tamperedSignatureFailsTheSignature() throws {
        let openssl = try OpenSSLCommand()
        let receipt = Self.chain.sign(ReceiptBuilder().der())
        let tampered = ReceiptMinter.tamperingSignature(receipt, at: 100)
        #expect(ReceiptMinter.signature(of: receipt)?.count == 256)
        let outcome = try Self.verify(tampered, root: Self.chain.root, in: openssl)
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("Verification failure"), "\(outcome.errors)")
    }

    @Test func anotherRootIsNotTrusted() throws {
        let openssl = try OpenSSLCommand()
        let receipt = TestReceiptChain().sign(ReceiptBuilder().der())
        let outcome = try Self.verify(receipt, root: Self.chain.root, in: openssl)
        #expect(outcome.status != 0)
        // The embedded root is self-signed and not the trusted one.
        #expect(outcome.errors.contains("self-signed certificate in certificate chain"), "\(outcome.errors)")
    }

    @Test func leafExpiredAtCreation() throws {
        let openssl = try OpenSSLCommand()
        let expired = TestReceiptChain(root: Self.chain.root, leafNotAfter: Date(timeIntervalSince1970: 1_735_000_000))
        let receipt = expired.sign(ReceiptBuilder().der())
        let outcome = try Self.verify(receipt, root: Self.chain.root, in: openssl)
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("certificate has expired"), "\(outcome.errors)")
    }

    @Test(arguments: [(true, false), (false, true), (false, false)])
    func markerOIDsCanBeDropped(leafHasOID: Bool, intermediateHasOID: Bool) throws {
        let openssl = try OpenSSLCommand()
        let chain = TestReceiptChain(
            root: Self.chain.root, leafHasOID: leafHasOID, intermediateHasOID: intermediateHasOID)
        // openssl knows nothing of Apple's markers: the receipt verifies, the markers are (not) there.
        let outcome = try Self.verify(chain.sign(ReceiptBuilder().der()), root: Self.chain.root, in: openssl)
        #expect(outcome.status == 0, "\(outcome.errors)")
        for (certificate, oid, present) in [
            (chain.leaf, TestPKI.leafOID, leafHasOID),
            (chain.intermediate, TestPKI.intermediateOID, intermediateHasOID),
        ] {
            try openssl.write(certificate.pem, to: "cert.pem")
            let text = try openssl.run("x509", "-in", "cert.pem", "-noout", "-text")
            #expect(text.output.contains(oid + ":") == present, "\(oid)")
        }
    }
}
