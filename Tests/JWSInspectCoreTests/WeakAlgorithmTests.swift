import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The weakest cryptography each kind of chain accepts (issue 23, item 9). JWS chains: OpenSSL's
/// authentication level 2, so no SHA-1 or MD5 certificate signature and no key under 112-bit
/// security (RSA 2048, EC P-224), whatever the options. Receipt chains: the same, except that
/// SHA-1 signatures pass (Apple signed receipt chains with SHA-1 until 2025).
@Suite struct WeakAlgorithmTests {
    /// A JWS chain under `root` whose intermediate has `intermediateKey` and is signed with
    /// `intermediateDigest`, and whose P-256 leaf is signed with `leafDigest`.
    struct WeakChain: Sendable, CustomTestStringConvertible {
        let label: String
        var rootKey: (@Sendable () -> TestKey)?
        var rootDigest: DigestAlgorithm = .sha256
        var intermediateKey: @Sendable () -> TestKey = { .p384() }
        var intermediateDigest: DigestAlgorithm = .sha256
        var leafDigest: DigestAlgorithm = .sha256
        /// The chain check's detail starts with this; nil when the chain must verify.
        var refusal: String?
        var testDescription: String { label }

        /// The token, and the root to trust.
        func token() -> (String, TestCertificate) {
            let root =
                rootKey.map { key in
                    TestPKI.issue(
                        CertificateSpec(
                            commonName: "Weak Test Root", notBefore: AppleShapedChain.caNotBefore,
                            notAfter: AppleShapedChain.caNotAfter, isCA: true, signatureDigest: rootDigest),
                        key: key(), issuer: nil)
                } ?? Fixtures.pki.root
            let intermediate = TestPKI.issue(
                CertificateSpec(
                    commonName: "Weak Test WWDR", serial: 2, notBefore: AppleShapedChain.caNotBefore,
                    notAfter: AppleShapedChain.caNotAfter, isCA: true, markerOIDs: [TestPKI.intermediateOID],
                    signatureDigest: intermediateDigest),
                key: intermediateKey(), issuer: root)
            let leaf = TestPKI.issue(
                CertificateSpec(
                    commonName: "Weak Test Leaf", serial: 3, notBefore: AppleShapedChain.leafNotBefore,
                    notAfter: AppleShapedChain.leafNotAfter, isCA: false, markerOIDs: [TestPKI.leafOID],
                    signatureDigest: leafDigest),
                issuer: intermediate)
            let token = TestPKI.compactJWS(
                headerJSON: Fixtures.pki.headerJSON(x5c: [leaf.base64, intermediate.base64, root.base64]),
                payloadJSON: TestPayloads.transaction(), key: leaf.key)
            return (token, root)
        }
    }

    static let jwsChains: [WeakChain] = [
        WeakChain(
            label: "SHA-1 intermediate", intermediateDigest: .sha1,
            refusal: "CA signature digest algorithm too weak (X509_V_ERR 68) at the intermediate \"Weak Test WWDR\": "
                + "signed with ecdsa-with-SHA1 (SHA1, 63-bit security); accepted: keys of at least 112-bit security"),
        WeakChain(
            label: "MD5 leaf", intermediateKey: { .rsa() }, leafDigest: .md5,
            refusal: "CA signature digest algorithm too weak (X509_V_ERR 68) at the leaf \"Weak Test Leaf\": signed "
                + "with md5WithRSAEncryption (MD5, 39-bit security)"),
        WeakChain(
            label: "SHA-1 leaf", intermediateKey: { .rsa() }, leafDigest: .sha1,
            refusal: "CA signature digest algorithm too weak (X509_V_ERR 68) at the leaf \"Weak Test Leaf\": signed "
                + "with sha1WithRSAEncryption (SHA1, 63-bit security)"),
        WeakChain(
            label: "RSA-1024 intermediate", intermediateKey: { .rsa(bits: 1024) },
            refusal: "CA certificate key too weak (X509_V_ERR 67) at the intermediate \"Weak Test WWDR\": its key is "
                + "RSA 1024 (80-bit security)"),
        WeakChain(
            label: "P-192 intermediate", intermediateKey: { TestKey(generating: .p192) },
            refusal: "CA certificate key too weak (X509_V_ERR 67) at the intermediate \"Weak Test WWDR\": its key is "
                + "EC prime192v1 (80-bit security)"),
        WeakChain(
            label: "RSA-1024 root", rootKey: { .rsa(bits: 1024) },
            refusal: "CA certificate key too weak (X509_V_ERR 67) at the root \"Weak Test Root\": its key is RSA 1024"),
        // What level 2 accepts: RSA 2048 issuers, and a SHA-1 self-signature on the trusted root
        // itself (the anchor's own signature is not what trust rests on; OpenSSL does not check it).
        WeakChain(label: "RSA-2048 intermediate", intermediateKey: { .rsa() }),
        WeakChain(label: "root self-signed with SHA-1", rootKey: { .p384() }, rootDigest: .sha1),
    ]

    @Test(arguments: jwsChains)
    func jwsChainsNeedLevelTwoWhateverTheOptions(_ chain: WeakChain) throws {
        let (token, root) = chain.token()
        let store = TrustStore(roots: [try Certificate(derBytes: root.der)])
        for strict in [false, true] {
            let result = Fixtures.inspect(token) {
                $0.trustStore = store
                $0.strictX509 = strict
            }
            guard let refusal = chain.refusal else {
                #expect(result.status == .valid, "\(result.checks.map(\.detail))")
                continue
            }
            #expect(result.status == .invalidChain)
            #expect(result.failedCheck == .chain)
            let detail = result.check(.chain)?.detail ?? ""
            #expect(detail.hasPrefix(refusal), "\(detail)")
        }
    }

    /// The real Apple chains (P-256 leaves, P-384 intermediates and root G3, ECDSA with SHA-256
    /// and SHA-384) pass level 2 with the embedded roots.
    @Test(arguments: ["transaction-sandbox-2022.jws", "notification-test-sandbox-2025.jws"])
    func realAppleChainsPassLevelTwo(_ name: String) throws {
        var options = VerificationOptions()
        options.now = Fixtures.now
        let result = Verifier(options: options).inspect(try Fixtures.sample(name), source: name)
        #expect(result.status == .valid, "\(result.checks.map(\.detail))")
        #expect(result.notes.isEmpty, "\(result.notes)")
    }

    // MARK: Receipts

    /// One receipt chain per weakness (RSA keys are slow: made once).
    static let md5Chain = TestReceiptChain(certificateDigest: .md5)
    static let md5Intermediate = TestReceiptChain(certificateDigest: .md5, leafDigest: .sha1)
    static let rsa512Signer = TestReceiptChain(leafKey: .rsa(bits: 512))
    static let rsa1024Signer = TestReceiptChain(leafKey: .rsa(bits: 1024))
    static let rsa1024Intermediate = TestReceiptChain(intermediateKey: .rsa(bits: 1024))
    static let sha1Chain = TestReceiptChain(certificateDigest: .sha1)

    static let receiptChains: [(String, TestReceiptChain, ReceiptChain.Failure?)] = [
        ("MD5 chain", md5Chain, .path(.signatureDigestTooWeak, depth: 0)),
        ("MD5 intermediate under a SHA-1 leaf", md5Intermediate, .path(.signatureDigestTooWeak, depth: 1)),
        ("RSA-512 signer", rsa512Signer, .path(.leafKeyTooSmall, depth: 0)),
        ("RSA-1024 signer", rsa1024Signer, .path(.leafKeyTooSmall, depth: 0)),
        ("RSA-1024 intermediate", rsa1024Intermediate, .path(.caKeyTooSmall, depth: 1)),
        ("SHA-1 chain", sha1Chain, nil),
    ]

    @Test(arguments: receiptChains)
    func receiptChainsAllowSHA1AndNothingWeaker(
        _ label: String, _ chain: TestReceiptChain, _ failure: ReceiptChain.Failure?
    )
        throws
    {
        let container = try CMSSignedData(bytes: chain.sign(ReceiptBuilder().der(), digest: .sha1))
        let store = TrustStore(roots: [try Certificate(derBytes: chain.root.der)])
        let validation = ReceiptChain.validate(container, trustStore: store, at: ReceiptBuilder.defaultCreationDate)
        #expect(validation.failures == (failure.map { [$0] } ?? []), "\(label): \(validation.failures)")
    }

    /// SHA-1 passes receipt chains only: the same SHA-1 chain fails the JWS floor.
    @Test func sha1PassesTheReceiptFloorOnly() throws {
        let container = try CMSSignedData(bytes: Self.sha1Chain.sign(ReceiptBuilder().der()))
        let store = TrustStore(roots: [try Certificate(derBytes: Self.sha1Chain.root.der)])
        let others = container.certificates.filter { $0 !== container.signerCertificate }
        let date = ReceiptBuilder.defaultCreationDate
        let jws = store.validate(
            leaf: container.signerCertificate, intermediates: others, at: date, checks: .rfc5280, floor: .level2)
        #expect(jws.error == .signatureDigestTooWeak && jws.errorDepth == 0, "\(jws.errorText)")
        let receipt = store.validate(
            leaf: container.signerCertificate, intermediates: others, at: date, checks: .rfc5280,
            floor: ReceiptChain.algorithmFloor)
        #expect(receipt.isValid, "\(receipt.errorText)")
    }

    /// The CMS signer's digest: SHA-1 and SHA-256 are accepted, MD5 is not (nor is an MD5 named
    /// by the signature algorithm alone).
    @Test func cmsSignerDigestsMeetTheReceiptFloor() throws {
        let chain = ReceiptMintingTests.chain
        for (digest, refused) in [(DigestAlgorithm.sha256, [String]()), (.sha1, []), (.md5, ["MD5"])] {
            let container = try CMSSignedData(bytes: chain.sign(ReceiptBuilder().der(), digest: digest))
            #expect(container.digests(refusedBy: ReceiptChain.algorithmFloor) == refused, "\(digest)")
        }
        let sha1 = try CMSSignedData(bytes: chain.sign(ReceiptBuilder().der(), digest: .sha1))
        #expect(sha1.digests(refusedBy: .level2) == ["SHA1"])
    }
}
