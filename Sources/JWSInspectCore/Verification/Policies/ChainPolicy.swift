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
        /// A path valid under RFC 5280 that OpenSSL's strict checks, asked for, refuse: the
        /// findings in words (`strictFindings`).
        case strictRefusal(String)

        var text: String {
            switch self {
            case .valid(let anchorName, let time):
                "leaf -> intermediate -> trusted root \(anchorName), valid \(time.phrase)"
            case .pinned(let certificate, let time):
                "the certificate \(certificate.quotedName) is itself a trusted root, valid \(time.phrase)"
            case .failed(let failure):
                failure.text
            case .strictRefusal(let findings):
                ChainPolicy.strictRefusal(findings)
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
            /// Another moment (now), and how messages name it ("now (2026-…)").
            case phrase(String, Date)

            var date: Date {
                switch self {
                case .checkTime(let time): time.date
                case .phrase(_, let date): date
                }
            }
        }

        var text: String {
            guard let error = result.error else { return "ok" }  // Only failures are explained.
            let when =
                switch self.when {
                case .checkTime(let time): time.phrase
                case .phrase(let phrase, _): phrase
                }
            let depth = Int(result.errorDepth)
            // The certificate OpenSSL names (the trusted root itself, not x5c[2], at the root's depth).
            let subject: Certificate? =
                result.errorCertificate ?? (depth >= 0 && depth < certificates.count ? certificates[depth] : nil)
            let which = depth == 0 ? "leaf" : depth == 1 ? "intermediate" : depth >= 2 ? "root" : "chain"
            var text = error.description
            if let subject {
                text += " at the \(which) \(subject.quotedName)"
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
                // OpenSSL names one certificate; the others out of date then are named too (an old
                // receipt's leaf and intermediate have both expired).
                let moment = self.when.date
                let others = certificates.enumerated().filter { index, certificate in
                    guard index != depth, let from = certificate.notBefore, let to = certificate.notAfter else {
                        return false
                    }
                    return !(from <= moment && moment <= to)
                }
                for (index, certificate) in others {
                    let role = index == 0 ? "leaf" : index == 1 ? "intermediate" : "root"
                    text +=
                        "; the \(role) \(certificate.quotedName) too (valid \(ISO8601.string(certificate.notBefore)) "
                        + "to \(ISO8601.string(certificate.notAfter)))"
                }
            case .unableToGetIssuerCert, .unableToGetIssuerCertLocally, .unableToVerifyLeafSignature:
                let names = roots.map(\.quotedName).joined(separator: ", ")
                let issuer = (subject ?? certificates[min(1, certificates.count - 1)]).issuer
                text += ": issuer \"\(issuer)\" is not among the trusted roots (\(names)); \(untrustedNote)"
            case .leafKeyTooSmall, .caKeyTooSmall:
                text += ": its key is \(subject?.keyStrength?.description ?? "of an unknown strength"); "
                text += "accepted: \(result.floor.summary)"
            case .signatureDigestTooWeak:
                text += ": signed with \(subject?.signatureStrength?.description ?? "an unknown algorithm"); "
                text += "accepted: \(result.floor.summary)"
            default:
                text += ", checked \(when)"
            }
            return text
        }
    }

    /// The checks of OpenSSL's strict mode (`X509_V_FLAG_X509_STRICT`) that a path valid under
    /// RFC 5280 fails, by certificate: "at the intermediate "…": Path length given without key
    /// usage keyCertSign (X509_V_ERR 81), CA cert does not include key usage extension
    /// (X509_V_ERR 92); at the root "…": …". Worded once per validated path (the cache keeps the
    /// words with it).
    static func strictFindings(_ validation: TrustStore.PathValidation) -> String {
        let count = validation.path.count
        var groups: [(depth: Int32, certificate: Certificate?, errors: [String])] = []
        for finding in validation.strictFindings {
            if let index = groups.firstIndex(where: { $0.depth == finding.depth }) {
                groups[index].errors.append(finding.error.description)
            } else {
                groups.append((finding.depth, finding.certificate, [finding.error.description]))
            }
        }
        var words = groups.map { group in
            let depth = Int(group.depth)
            let role = depth == 0 ? "leaf" : depth == count - 1 ? "root" : depth > 0 ? "intermediate" : "chain"
            let name = group.certificate.map { " \($0.quotedName)" } ?? ""
            return "at the \(role)\(name): " + group.errors.joined(separator: ", ")
        }.joined(separator: "; ")
        if validation.strictFindingsDropped > 0 { words += "; and \(validation.strictFindingsDropped) more" }
        return words
    }

    /// The note on a chain valid under RFC 5280 that OpenSSL's strict checks refuse.
    static func strictNote(_ findings: String) -> String {
        "the chain is valid under RFC 5280, as Apple's Swift, Java and Node libraries validate it, but OpenSSL's "
            + "strict checks (X509_V_FLAG_X509_STRICT), which Apple's Python library applies by default, refuse it: "
            + findings
    }

    /// The chain check's detail when the strict checks were asked for and refuse the chain.
    static func strictRefusal(_ findings: String) -> String {
        "OpenSSL's strict checks (X509_V_FLAG_X509_STRICT, asked for) refuse the chain: " + findings
    }
}

extension Check.Name {
    package static let chain = ChainPolicy.name
}
