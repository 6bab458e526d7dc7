internal import COpenSSL

/// A message digest the test PKI signs with: in certificate signatures
/// (`sha256WithRSAEncryption`, `sha1WithRSAEncryption`, `md5WithRSAEncryption`,
/// `ecdsa-with-SHA256`, `ecdsa-with-SHA1`) and as a CMS signer's digest algorithm.
///
/// OpenSSL 3.0's default provider still signs with MD5 and SHA-1 through `X509_sign` and
/// `CMS_add1_signer` (no legacy provider, no security-level change needed); MD5 has no ECDSA
/// signature OID, so MD5 certificates need an RSA issuer key.
package enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// SHA-1, as on Apple's receipt chains up to 2023 (and on their signers' digests).
    case sha1 = "SHA-1"
    /// SHA-256, the default everywhere else.
    case sha256 = "SHA-256"
    /// MD5, which nothing of Apple's uses: for certificates and signers that must be refused.
    case md5 = "MD5"

    /// The OpenSSL `EVP_MD` (a static object OpenSSL owns; never freed).
    package var md: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .md5: EVP_md5()
        }
    }
}
