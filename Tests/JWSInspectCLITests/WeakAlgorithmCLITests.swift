import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// Weak cryptography through the whole command (issue 23, item 9): each refusal is named (the
/// certificate, its algorithm or key size) with its exit status. A weak certificate is a `chain`
/// failure (exit 2); an MD5 CMS digest a `signature` failure (exit 1): the digest is part of
/// the signature, and a signature over a digest one can collide proves nothing about the bytes.
@Suite(.timeLimit(.minutes(10))) struct WeakAlgorithmCLITests {
    /// A JWS chain under the receipt suites' scratch folder: the test PKI's root, an RSA 2048
    /// intermediate signed with `intermediateDigest`, a P-256 leaf it signs with `leafDigest`.
    static func token(intermediateDigest: DigestAlgorithm, leafDigest: DigestAlgorithm) throws -> (String, String) {
        let pki = AppleShapedChain()
        let intermediate = TestPKI.issue(
            CertificateSpec(
                commonName: "Weak Test WWDR", serial: 2, notBefore: AppleShapedChain.caNotBefore,
                notAfter: AppleShapedChain.caNotAfter, isCA: true, markerOIDs: [TestPKI.intermediateOID],
                signatureDigest: intermediateDigest),
            key: .rsa(), issuer: pki.root)
        let leaf = TestPKI.issue(
            CertificateSpec(
                commonName: "Weak Test Leaf", serial: 3, notBefore: AppleShapedChain.leafNotBefore,
                notAfter: AppleShapedChain.leafNotAfter, isCA: false, markerOIDs: [TestPKI.leafOID],
                signatureDigest: leafDigest),
            issuer: intermediate)
        let token = TestPKI.compactJWS(
            headerJSON: pki.headerJSON(x5c: [leaf.base64, intermediate.base64, pki.root.base64]),
            payloadJSON: TestPayloads.transaction(), key: leaf.key)
        return (token, try ReceiptCLI.file(Array(pki.root.pem.utf8), named: "weak-root.pem"))
    }

    @Test(
        arguments: [
            (
                DigestAlgorithm.sha1, DigestAlgorithm.sha256,
                "at the intermediate \"Weak Test WWDR\": signed with ecdsa-with-SHA1"
            ),
            (.sha256, .md5, "at the leaf \"Weak Test Leaf\": signed with md5WithRSAEncryption (MD5, 39-bit security)"),
        ])
    func weakJWSChainsExitTwoEvenWithoutStrictChecks(
        intermediate: DigestAlgorithm, leaf: DigestAlgorithm, named: String
    ) throws {
        let (token, root) = try Self.token(intermediateDigest: intermediate, leafDigest: leaf)
        for extra in [[], ["--x509-strict"]] {
            let result = ReceiptCLI.run(extra + ["--root", root, "--format", "jsonl", "-"], stdin: token)
            #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
            let object = try ReceiptCLI.object(result)
            #expect(ReceiptCLI.failedChecks(object) == ["chain"])
            let detail = ReceiptCLI.check("chain", of: object)?["detail"] as? String ?? ""
            #expect(detail.hasPrefix("CA signature digest algorithm too weak (X509_V_ERR 68)"), "\(detail)")
            #expect(detail.contains(named), "\(detail)")
        }
    }

    /// Receipt chains: SHA-1 passes, MD5 and keys under 2048-bit RSA do not, the signer included.
    static let weakReceiptChains: [(String, TestReceiptChain, String)] = [
        (
            "MD5 chain", TestReceiptChain(certificateDigest: .md5),
            "CA signature digest algorithm too weak (X509_V_ERR 68) at the leaf \"jwsinspect Test App Store Receipt "
                + "Signing\": signed with md5WithRSAEncryption (MD5, 39-bit security)"
        ),
        (
            "RSA-512 signer", TestReceiptChain(leafKey: .rsa(bits: 512)),
            "EE certificate key too weak (X509_V_ERR 66) at the leaf \"jwsinspect Test App Store Receipt Signing\": "
                + "its key is RSA 512"
        ),
        (
            "RSA-1024 intermediate", TestReceiptChain(intermediateKey: .rsa(bits: 1024)),
            "CA certificate key too weak (X509_V_ERR 67) at the intermediate \"jwsinspect Test Receipt WWDR "
                + "Intermediate\": its key is RSA 1024 (80-bit security)"
        ),
    ]

    @Test(arguments: weakReceiptChains)
    func weakReceiptChainsExitTwo(_ label: String, _ chain: TestReceiptChain, _ expected: String) throws {
        let receipt = try ReceiptCLI.file(chain.sign(ReceiptBuilder().der(), digest: .sha1), named: "weak.der")
        let root = try ReceiptCLI.file(Array(chain.root.pem.utf8), named: "weak-root.pem")
        let result = ReceiptCLI.run(["--root", root, "--format", "jsonl", receipt])
        #expect(result.status == 2, "\(label): \(result.stdout)\(result.stderr)")
        let object = try ReceiptCLI.object(result)
        #expect(ReceiptCLI.failedChecks(object) == ["chain"], "\(label)")
        let detail = ReceiptCLI.check("chain", of: object)?["detail"] as? String ?? ""
        #expect(detail.hasPrefix(expected), "\(label): \(detail)")
        #expect(detail.contains("accepted: keys of at least 112-bit security"), "\(detail)")
    }

    @Test func sha1ReceiptChainsAndDigestsStillVerify() throws {
        let chain = TestReceiptChain(certificateDigest: .sha1)
        let receipt = try ReceiptCLI.file(chain.sign(ReceiptBuilder().der(), digest: .sha1), named: "sha1.der")
        let root = try ReceiptCLI.file(Array(chain.root.pem.utf8), named: "sha1-root.pem")
        let result = ReceiptCLI.run(["--root", root, "--format", "jsonl", receipt])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let detail = try ReceiptCLI.check("signature", of: ReceiptCLI.object(result))?["detail"] as? String
        #expect(detail?.hasPrefix("PKCS#7 signature (sha1 with rsaEncryption)") == true, "\(detail ?? "")")
    }

    @Test func md5ReceiptDigestFailsTheSignature() throws {
        let receipt = try ReceiptCLI.file(
            ReceiptCLI.chain.sign(ReceiptBuilder().der(), digest: .md5), named: "md5-digest.der")
        let result = ReceiptCLI.run(["--root", ReceiptCLI.rootFile, "--format", "jsonl", receipt])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let object = try ReceiptCLI.object(result)
        #expect(ReceiptCLI.failedChecks(object) == ["signature"])
        let detail = ReceiptCLI.check("signature", of: object)?["detail"] as? String ?? ""
        #expect(
            detail.hasPrefix(
                "the PKCS#7 signature (md5 with rsaEncryption) uses the digest MD5, which receipts do not accept"),
            "\(detail)")
        #expect(ReceiptCLI.check("chain", of: object)?["passed"] as? Bool == true)
    }
}
