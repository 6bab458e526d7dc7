import Foundation
import Testing

@testable import JWSInspectCore

/// The eight real receipts (Tests/Vectors/receipts/README.md): the CMS signature, the chain to
/// Apple Inc. Root at the creation date (and not now), and the fields `openssl asn1parse` shows.
@Suite struct ReceiptTests {
    /// What `openssl asn1parse -inform DER -in F` (and `-strparse` of the content) shows.
    struct Expected: Sendable, CustomStringConvertible {
        let file: String
        let environment: String
        let bundleID: String
        let created: String
        let inApp: Int
        let digest: String
        let attributes: Int
        var description: String { file }
    }

    static let appStore = [
        Expected(
            file: "06-sandbox-griddiary-2014.der", environment: "ProductionSandbox", bundleID: "com.sumiapp.GridDiary",
            created: "2014-09-02T03:29:06Z", inApp: 2, digest: "sha1", attributes: 23),
        Expected(
            file: "16-sandbox-gridnote-2017.der", environment: "ProductionSandbox", bundleID: "io.sumi.GridNote",
            created: "2017-06-16T06:01:55Z", inApp: 7, digest: "sha1", attributes: 28),
        Expected(
            file: "25-sandbox-nutcall-alert-2020-187iap.der", environment: "ProductionSandbox",
            bundleID: "com.nutcall.alert", created: "2020-05-06T18:28:49Z", inApp: 187, digest: "sha1",
            attributes: 208),
        Expected(
            file: "33-sandbox-purchasingexp-2023-g7.der", environment: "ProductionSandbox",
            bundleID: "com.hannesoid.PurchasingExperiments", created: "2023-02-22T14:30:15Z", inApp: 2,
            digest: "sha1", attributes: 23),
        Expected(
            file: "36-prod-getpure-2024-g5.der", environment: "Production", bundleID: "org.getpure.pure-iphone",
            created: "2024-02-23T17:27:16Z", inApp: 4, digest: "sha256", attributes: 25),
        Expected(
            file: "38-sandbox-weeka-2025-g5.der", environment: "ProductionSandbox", bundleID: "dev.bonzer.weeka.app",
            created: "2025-12-26T18:39:47Z", inApp: 2, digest: "sha256", attributes: 23),
    ]

    static let xcode = [
        Expected(
            file: "01-xcode-apple-backyardbirds-empty.der", environment: "Xcode",
            bundleID: "com.example.naturelab.backyardbirds.example", created: "2023-10-19T01:18:54Z", inApp: 0,
            digest: "sha256", attributes: 9),
        Expected(
            file: "02-xcode-apple-backyardbirds-1iap.der", environment: "Xcode",
            bundleID: "com.example.naturelab.backyardbirds.example", created: "2023-10-19T01:45:40Z", inApp: 1,
            digest: "sha256", attributes: 10),
    ]

    /// A fixed "now" after every App Store leaf here but 2026-08-23's: 2030-01-01.
    static let later = Date(timeIntervalSince1970: 1_893_456_000)

    static func receipt(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes("Tests/Vectors/receipts/\(name)")
    }

    @Test(arguments: appStore + xcode)
    func fieldsAreThoseOpenSSLShows(_ expected: Expected) throws {
        let container = try CMSSignedData(bytes: Self.receipt(expected.file))
        #expect(container.digestAlgorithm == expected.digest)
        let payload = try ReceiptPayload(der: container.content)
        #expect(payload.attributes.count == expected.attributes)
        #expect(payload.receiptType == expected.environment)
        #expect(payload.bundleID == expected.bundleID)
        #expect(payload.creationDateText == expected.created)
        #expect(payload.creationDate == ISO8601DateFormatter().date(from: expected.created))
        #expect(payload.inApp.count == expected.inApp)
        #expect(payload.sha1Hash?.count == 20)
        #expect(payload.opaqueValue?.count == (expected.environment == "Xcode" ? 8 : 16))
        // Field 2's whole DER value: UTF8String tag, length, bytes.
        #expect(payload.bundleIDBytes == [0x0C, UInt8(expected.bundleID.utf8.count)] + Array(expected.bundleID.utf8))
    }

    @Test(arguments: appStore)
    func appStoreReceiptsVerifyAndChainToAppleIncRootAtCreation(_ expected: Expected) throws {
        let container = try CMSSignedData(bytes: Self.receipt(expected.file))
        try container.verifySignature()
        #expect(container.certificates.count == 3)
        let created = try #require(try ReceiptPayload(der: container.content).creationDate)
        let atCreation = ReceiptChain.validate(container, at: created)
        #expect(atCreation.signer == .appStore)
        #expect(atCreation.isValid, "\(atCreation.failures)")
        #expect(atCreation.path.path.count == 3)
        #expect(atCreation.path.path.last?.sha256Fingerprint == ReceiptChain.appleIncRootFingerprint)
        let now = ReceiptChain.validate(container, at: Self.later)
        #expect(!now.isValid)
        // OpenSSL names the expired certificate nearest the root: the SHA-1 intermediates
        // (to 2016 and 2023) have expired too; the G5 intermediate runs to 2030-12.
        let depth: Int32 = expected.digest == "sha1" ? 1 : 0
        #expect(now.failures == [.path(.certHasExpired, depth: depth)], "\(now.failures)")
        if depth == 0 {
            #expect(now.failures.first?.description == "the leaf: certificate has expired (X509_V_ERR 10)")
        }
    }

    @Test func sha1ChainsNeedTheReceiptFloorAndGetItOnlyWhereAsked() throws {
        let container = try CMSSignedData(bytes: Self.receipt("06-sandbox-griddiary-2014.der"))
        let created = Date(timeIntervalSince1970: 1_409_628_546)
        let others = container.certificates.filter { $0 !== container.signerCertificate }
        // At the JWS chains' floor (level 2, SHA-1 refused): too weak, from the leaf up.
        let strict = ReceiptChain.appleIncRoot.validate(
            leaf: container.signerCertificate, intermediates: others, at: created, checks: .rfc5280, floor: .level2)
        #expect(strict.error == .signatureDigestTooWeak && strict.errorDepth == 0, "\(strict.errorText)")
        #expect(ReceiptChain.validate(container, at: created).isValid)
    }

    @Test(arguments: xcode)
    func xcodeReceiptsAreStoreKitTestingAndValidOnlyWithItsCertificateAsRoot(_ expected: Expected) throws {
        let bytes = try Self.receipt(expected.file)
        #expect(bytes.prefix(2) == [0x30, 0x80])  // BER, indefinite length
        let container = try CMSSignedData(bytes: bytes)
        try container.verifySignature()
        #expect(ReceiptChain.signer(of: container) == .storeKitTesting(knownCertificate: true))
        let created = try #require(try ReceiptPayload(der: container.content).creationDate)
        let untrusted = ReceiptChain.validate(container, at: created)
        #expect(!untrusted.isValid)
        #expect(untrusted.failures.count == 1)
        let trusted = ReceiptChain.validate(
            container, trustStore: TrustStore(roots: [container.signerCertificate]), at: created)
        #expect(trusted.isValid, "\(trusted.failures)")
        #expect(trusted.signer == .storeKitTesting(knownCertificate: true))
    }

    @Test func aChangedContentByteOrSignatureByteFailsTheSignature() throws {
        let bytes = try Self.receipt("36-prod-getpure-2024-g5.der")
        let original = try CMSSignedData(bytes: bytes)
        let content = try #require(bytes.firstRange(of: original.content))
        var tampered = bytes
        tampered[content.lowerBound + 200] ^= 0x01
        let changed = try CMSSignedData(bytes: tampered)
        #expect(!changed.signatureVerifies)
        #expect(throws: CMSSignedData.SignatureError.self) { try changed.verifySignature() }
        // The RSA signature is the last OCTET STRING of the container: its last byte.
        var forged = bytes
        forged[forged.count - 1] ^= 0x01
        let badSignature = try CMSSignedData(bytes: forged)
        #expect(!badSignature.signatureVerifies)
        do {
            try badSignature.verifySignature()
        } catch {
            #expect(!error.reason.isEmpty && !error.reason.contains("\n"), "\(error.reason)")
        }
    }

    /// Every entry of the largest real receipt decodes (how fast is `make bench-receipts`'s to say).
    @Test func the187EntryReceiptDecodesEveryEntry() throws {
        let container = try CMSSignedData(bytes: Self.receipt("25-sandbox-nutcall-alert-2020-187iap.der"))
        let payload = try ReceiptPayload(der: container.content)
        #expect(payload.inApp.count == 187)
        #expect(payload.inApp.allSatisfy { $0.productID != nil && $0.transactionID != nil })
    }

    @Test func anInAppEntryHasTheFieldsOpenSSLShows() throws {
        let container = try CMSSignedData(bytes: Self.receipt("36-prod-getpure-2024-g5.der"))
        let entry = try #require(try ReceiptPayload(der: container.content).inApp.first)
        #expect(entry.productID == "org.getpure.pure.Week")
        #expect(entry.transactionID == "340001196262039")
        #expect(entry.originalTransactionID == "340001196262039")
        #expect(entry.quantity == 1)
        #expect(entry.webOrderLineItemID == 340_000_558_053_130)
        #expect(entry.purchaseDateText == "2023-05-09T23:20:55Z")
        #expect(entry.expiresDate == ISO8601DateFormatter().date(from: "2023-05-16T23:20:55Z"))
        #expect(entry.isSubscription && !entry.isCancelled)
        #expect(entry.attribute(1709)?.value == .utf8String(""))  // undocumented, kept
    }
}
