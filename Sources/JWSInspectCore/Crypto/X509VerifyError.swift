internal import COpenSSL

/// Why a certificate path did not validate: OpenSSL's `X509_V_ERR_*` code as a value.
///
/// The codes jwsinspect explains differently have their own cases; every other code is
/// `.other(code)`. Build values from a raw code with `init(code:)`, which never yields
/// `.other` for a code that has a case. The text is OpenSSL's, looked up only when shown.
package enum X509VerifyError: Sendable, Equatable, CustomStringConvertible {
    /// `X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT` (2): an issuer named in the path is not at hand.
    case unableToGetIssuerCert
    /// `X509_V_ERR_CERT_NOT_YET_VALID` (9): a certificate's notBefore is after the check time.
    case certNotYetValid
    /// `X509_V_ERR_CERT_HAS_EXPIRED` (10): a certificate's notAfter is before the check time.
    case certHasExpired
    /// `X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY` (20): no trusted root issued the top of the path.
    case unableToGetIssuerCertLocally
    /// `X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE` (21): a one-certificate path with no trusted issuer.
    case unableToVerifyLeafSignature
    /// `X509_V_ERR_EE_KEY_TOO_SMALL` (66): the leaf's key is below the authentication level.
    case leafKeyTooSmall
    /// `X509_V_ERR_CA_KEY_TOO_SMALL` (67): an issuer's key (or the trusted root's) is below the level.
    case caKeyTooSmall
    /// `X509_V_ERR_CA_MD_TOO_WEAK` (68): a certificate's signature digest is below the level (any
    /// certificate's but the trust anchor's own, whatever OpenSSL's text says about CAs).
    case signatureDigestTooWeak
    /// Any other `X509_V_ERR_*` code (and `X509_V_OK`, should OpenSSL fail without a code).
    case other(Int32)
    /// OpenSSL's verification never ran: the check time is out of range, or the verification
    /// context could not be set up. The fragment says why; the code shown is -1.
    case notStarted(String)

    /// The value for OpenSSL's code `code`, as returned by `X509_STORE_CTX_get_error`.
    package init(code: Int32) {
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT: self = .unableToGetIssuerCert
        case X509_V_ERR_CERT_NOT_YET_VALID: self = .certNotYetValid
        case X509_V_ERR_CERT_HAS_EXPIRED: self = .certHasExpired
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY: self = .unableToGetIssuerCertLocally
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE: self = .unableToVerifyLeafSignature
        case X509_V_ERR_EE_KEY_TOO_SMALL: self = .leafKeyTooSmall
        case X509_V_ERR_CA_KEY_TOO_SMALL: self = .caKeyTooSmall
        case X509_V_ERR_CA_MD_TOO_WEAK: self = .signatureDigestTooWeak
        default: self = .other(code)
        }
    }

    /// OpenSSL's code (-1 for `.notStarted`).
    package var code: Int32 {
        switch self {
        case .unableToGetIssuerCert: X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT
        case .certNotYetValid: X509_V_ERR_CERT_NOT_YET_VALID
        case .certHasExpired: X509_V_ERR_CERT_HAS_EXPIRED
        case .unableToGetIssuerCertLocally: X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
        case .unableToVerifyLeafSignature: X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE
        case .leafKeyTooSmall: X509_V_ERR_EE_KEY_TOO_SMALL
        case .caKeyTooSmall: X509_V_ERR_CA_KEY_TOO_SMALL
        case .signatureDigestTooWeak: X509_V_ERR_CA_MD_TOO_WEAK
        case .other(let code): code
        case .notStarted: -1
        }
    }

    /// What went wrong in a few words: OpenSSL's text for the code ("certificate has expired"),
    /// or the reason verification never ran.
    package var text: String {
        if case .notStarted(let reason) = self { return reason }
        // OpenSSL 3 returns static text, for unknown codes too: safe from any thread.
        return X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
    }

    /// The text with its code, as reports show it: "certificate has expired (X509_V_ERR 10)".
    package var description: String { "\(text) (X509_V_ERR \(code))" }
}
