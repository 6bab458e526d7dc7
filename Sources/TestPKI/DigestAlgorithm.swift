internal import COpenSSL

/// A message digest the test PKI signs with: in certificate signatures
/// (`sha256WithRSAEncryption`, `sha1WithRSAEncryption`, `ecdsa-with-SHA256`) and as
/// a CMS signer's digest algorithm.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// SHA-1, as on Apple's receipt chains up to 2023 (and on their signers' digests).
    case sha1 = "SHA-1"
    /// SHA-256, the default everywhere else.
    case sha256 = "SHA-256"

    /// The OpenSSL `EVP_MD` (a static object OpenSSL owns; never freed).
    var md: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        }
    }
}
