/// `x5c`: the header's certificate list is usable by a trust model. The check itself is
/// decided while the trust model is selected (`TrustModel.select`), once per token.
struct X5CPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("x5c", failing: .invalidChain)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        token.trust.x5c.map { .check($0) } ?? .none
    }

    /// The details `TrustModel.select` records.
    enum Detail: CheckDetail {
        /// A count other than the App Store's three.
        case count(Int)
        /// Three entries whose x5c[2] is not a certificate (`ParsedChain.ignoredRoot` says why).
        case ignoredRoot(String)
        /// One self-signed certificate that looks like StoreKit Testing in Xcode's, not trusted.
        case untrustedXcode(Certificate, any HintWording)

        var text: String {
            switch self {
            case .count(let count):
                "x5c has \(count) certificate\(count == 1 ? "" : "s"); "
                    + "App Store chains have exactly 3 (leaf, intermediate, root)"
            case .ignoredRoot(let ignored):
                "3 entries (leaf, intermediate, x5c[2]); \(ignored)"
            case .untrustedXcode(let certificate, let hints):
                "a StoreKit Testing in Xcode token (one self-signed certificate "
                    + "\"\(certificate.commonName ?? certificate.subject)\"), NOT signed by the App Store; to verify "
                    + "it, export the certificate from Xcode (Editor > Save Public Certificate) and pass "
                    + hints.word(.needsRoot(file: "StoreKitTestCertificate.cer"))
            }
        }
    }
}

extension Check.Name {
    package static let x5c = X5CPolicy.name
}
