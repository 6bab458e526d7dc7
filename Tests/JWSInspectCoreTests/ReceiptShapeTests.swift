import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// The shape of minted receipts, as `openssl cms -cmsout -print` and friends show it: Apple's
/// (no signed attributes, `rsaEncryption`, three embedded certificates), Xcode's (indefinite-length
/// BER, one self-signed certificate), and what OpenSSL's security levels make of SHA-1 chains.
@Suite(.timeLimit(.minutes(10))) struct ReceiptShapeTests {
    /// One SHA-1 chain for the suite (Apple's shape up to 2023).
    static let sha1Chain = TestReceiptChain(certificateDigest: .sha1)

    @Test func signerHasNoSignedAttributesLikeApple() throws {
        let openssl = try OpenSSLCommand()
        let content = ReceiptBuilder().der()
        try openssl.write(ReceiptMintingTests.chain.sign(content), to: "apple.der")
        let apple = try openssl.run("cms", "-cmsout", "-print", "-inform", "DER", "-in", "apple.der")
        #expect(apple.status == 0, "\(apple.errors)")
        #expect(apple.output.contains("signedAttrs:\n          <ABSENT>"), "\(apple.output)")
        #expect(apple.output.contains("signatureAlgorithm: \n          algorithm: rsaEncryption"))
        #expect(apple.output.contains("algorithm: sha256 (2.16.840.1.101.3.4.2.1)"))

        let withAttributes = ReceiptMinter.sign(
            content: content, signer: ReceiptMintingTests.chain.leaf, signedAttributes: true)
        try openssl.write(withAttributes, to: "attributes.der")
        let printed = try openssl.run("cms", "-cmsout", "-print", "-inform", "DER", "-in", "attributes.der")
        #expect(printed.output.contains("object: contentType") && printed.output.contains("object: signingTime"))
    }

    @Test func appStoreReceiptEmbedsTheWholeTestChain() throws {
        let openssl = try OpenSSLCommand()
        try openssl.write(ReceiptMintingTests.chain.sign(ReceiptBuilder().der()), to: "receipt.der")
        let certificates = try openssl.run("pkcs7", "-inform", "DER", "-in", "receipt.der", "-print_certs", "-noout")
        let subjects = certificates.output.split(separator: "\n").filter { $0.hasPrefix("subject=") }
        #expect(subjects.count == 3, "\(certificates.output)")
        #expect(subjects.allSatisfy { $0.contains("O = jwsinspect test PKI") && !$0.contains("Apple") })
    }

    /// A small receipt and one of 200 entries (whose content OpenSSL streams in several BER chunks).
    @Test(arguments: [0, 200])
    func xcodeReceiptIsIndefiniteLengthBERUnderOneSelfSignedCertificate(entries: Int) throws {
        let openssl = try OpenSSLCommand()
        var builder = ReceiptBuilder(receiptType: ReceiptBuilder.xcode)
        builder.opaqueValue = Array(0..<8)
        builder.inApp = (0..<entries).map {
            InAppEntry(
                productID: "com.example.consumable", transactionID: "\($0)",
                purchaseDate: Date(timeIntervalSince1970: 1_733_011_200))
        }
        let receipt = ReceiptMintingTests.storeKit.sign(builder.der())
        #expect(receipt.prefix(2) == [0x30, 0x80], "indefinite length")
        #expect(ReceiptMinter.content(of: receipt) == builder.der())
        let trusted = try ReceiptMintingTests.verify(
            receipt, root: ReceiptMintingTests.storeKit.certificate, in: openssl)
        #expect(trusted.status == 0, "\(trusted.errors)")
        #expect(try openssl.read("content.bin") == builder.der())
        let untrusted = try ReceiptMintingTests.verify(receipt, root: ReceiptMintingTests.chain.root, in: openssl)
        #expect(untrusted.status != 0)
        try openssl.write(receipt, to: "xcode.ber")
        let certificates = try openssl.run("pkcs7", "-inform", "DER", "-in", "xcode.ber", "-print_certs", "-noout")
        #expect(certificates.output.contains("CN = jwsinspect Test StoreKit"))
        #expect(certificates.output.split(separator: "\n").filter { $0.hasPrefix("subject=") }.count == 1)
    }

    /// Observed with OpenSSL 3.0: `openssl cms -verify` sets no authentication level by default and
    /// accepts a SHA-1 chain; `-auth_level 0` too; from level 1 up OpenSSL counts sha1WithRSAEncryption
    /// as too weak for a CA's signature ("CA signature digest algorithm too weak"). SHA-256 passes level 2.
    @Test(
        arguments: [
            (DigestAlgorithm.sha1, nil, true), (.sha1, 0, true), (.sha1, 1, false), (.sha1, 2, false),
            (.sha256, 2, true),
        ] as [(DigestAlgorithm, Int?, Bool)])
    func sha1ChainsPassOnlyBelowSecurityLevelOne(digest: DigestAlgorithm, level: Int?, verifies: Bool) throws {
        let openssl = try OpenSSLCommand()
        let chain = digest == .sha1 ? Self.sha1Chain : ReceiptMintingTests.chain
        let receipt = chain.sign(ReceiptBuilder().der(), digest: digest)
        let extra = level.map { ["-auth_level", String($0)] } ?? []
        let outcome = try ReceiptMintingTests.verify(receipt, root: chain.root, in: openssl, extra: extra)
        #expect((outcome.status == 0) == verifies, "\(outcome.errors)")
        if !verifies {
            #expect(outcome.errors.contains("CA signature digest algorithm too weak"))
        }
    }

    @Test func datesAreRFC3339InWholeSecondsUTC() {
        #expect(ReceiptBuilder.rfc3339(Date(timeIntervalSince1970: 1_606_677_704.9)) == "2020-11-29T19:21:44Z")
    }
}
