internal import FoundationEssentials

/// `chain`: the certificates lead to a trusted root and are in date at the check time.
///
/// Decided by the trust model's validation (`AppStoreChain`, `PinnedCertificate`), which
/// validates the whole path in one OpenSSL call and caches it.
enum ChainPolicy: VerifierPolicy {
    static let name = Check.Name("chain", failing: .invalidChain)
    static let payloadMembers: [String] = []

    /// The chain check's details.
    enum Detail: CheckDetail {
        /// Every valid App Store chain: its detail names the check time, so it is formatted only
        /// when shown (`--quiet` batches never format the date).
        case valid(anchorName: String, at: Inspection.CheckTime)
        /// A pinned certificate that is itself a trusted root, in date at the check time.
        case pinned(Certificate, at: Inspection.CheckTime)
        /// OpenSSL's verdict on a path that did not validate.
        case failed(Failure)

        var text: String {
            switch self {
            case .valid(let anchorName, let time):
                "leaf -> intermediate -> trusted root \(anchorName), valid \(time.phrase)"
            case .pinned(let certificate, let time):
                "the certificate \(Run.name(certificate)) is itself a trusted root, valid \(time.phrase)"
            case .failed(let failure):
                failure.text
            }
        }
    }

    /// Why a path did not validate: OpenSSL's error as a sentence naming the certificate and the
    /// dates involved.
    struct Failure: CheckDetail {
        let result: TrustStore.PathValidation
        /// The certificates the error's depth counts in (leaf first).
        let certificates: [Certificate]
        /// The trusted roots, named when the issuer is not among them.
        let roots: [Certificate]
        /// When the path was checked: "at signedDate …", "now (…)".
        let when: When
        /// Said when the issuer is not a trusted root: which certificate is never trusted.
        var untrustedNote = "x5c[2] is never trusted"

        enum When: Sendable {
            case checkTime(Inspection.CheckTime)
            case phrase(String)
        }

        var text: String {
            guard let error = result.error else { return "ok" }  // Only failures are explained.
            let when =
                switch self.when {
                case .checkTime(let time): time.phrase
                case .phrase(let phrase): phrase
                }
            let depth = Int(result.errorDepth)
            let subject: Certificate? = depth >= 0 && depth < certificates.count ? certificates[depth] : nil
            let which = depth == 0 ? "leaf" : depth == 1 ? "intermediate" : depth >= 2 ? "root" : "chain"
            var text = error.description
            if let subject {
                text += " at the \(which) \(Run.name(subject))"
            } else if depth >= 0 {
                text += " at depth \(depth)"
            }
            switch error {
            case .certNotYetValid, .certHasExpired:
                if let subject {
                    text +=
                        ": valid \(ISO8601.string(subject.notBefore)) to \(ISO8601.string(subject.notAfter)), "
                        + "checked \(when)"
                } else {
                    text += ", checked \(when)"
                }
            case .unableToGetIssuerCert, .unableToGetIssuerCertLocally, .unableToVerifyLeafSignature:
                let names = roots.map { Run.name($0) }.joined(separator: ", ")
                let issuer = (subject ?? certificates[min(1, certificates.count - 1)]).issuer
                text += ": issuer \"\(issuer)\" is not among the trusted roots (\(names)); \(untrustedNote)"
            default:
                text += ", checked \(when)"
            }
            return text
        }
    }
}

extension Check.Name {
    public static let chain = ChainPolicy.name
}
