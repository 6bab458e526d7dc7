package import FoundationEssentials

extension Inspection {
    /// Whether the certificates are valid at the time of inspection too, when they were checked
    /// at another moment (the signing time, `--at`). Decided for every envelope in one place
    /// (`decide`) and worded here, for every renderer.
    package struct ValidityNow: Sendable {
        /// The time of inspection.
        package let date: Date
        package let valid: Bool
        /// "the chain is also valid now (2026-…)", or why it is not.
        package let detail: String
        /// Not valid now only because a certificate has expired since the check time: normal for
        /// data signed while its certificates were valid (Apple's leaves live about a year).
        package var expiredSince: Bool = false

        /// The warning beside a verdict whose certificates are valid at the check time, not now.
        package static let warning = "NOT valid now"

        /// "the chain is also valid now (2026-…)": the detail when `subject` is valid now too.
        ///
        /// - Parameters:
        ///   - subject: "chain", or "certificate" for a one-certificate chain.
        ///   - now: "now (2026-…)", as the verifier formats it once.
        static func alsoValid(_ subject: String, now: String) -> String {
            "the \(subject) is also valid \(now)"
        }

        /// "not valid now" beside one certificate of the chain whose own dates exclude `date`;
        /// nil when they include it.
        package func mark(_ certificate: CertificateSummary) -> String? {
            certificate.isWithinValidity(at: date) ? nil : "not valid now"
        }

        /// The one rule, configured once per verifier: whether the certificates are valid now
        /// too, for every envelope and trust model.
        struct Rule: Sendable {
            /// False when the caller wants nothing said of it.
            let reports: Bool
            /// The time of inspection.
            let now: Date
            /// "now (2026-…)", as the verifier formats it once.
            let nowText: String

            /// Whether the certificates checked at `checkTime` are valid now too.
            ///
            /// - Parameters:
            ///   - checkTime: when they were checked; nil is returned when that was now (the
            ///     verdict itself then says whether they are valid now) or when nothing is reported of it.
            ///   - validText: the detail when they are ("the chain is also valid now (…)").
            ///   - known: true when they are already known to be valid now (a validated window covers now).
            ///   - validate: validates them now; not called when `known`.
            ///   - explain: why a validation now failed, in words.
            func decide(
                checkTime: Inspection.CheckTime, validText: String, known: Bool,
                validate: () -> TrustStore.PathValidation, explain: (TrustStore.PathValidation) -> String
            ) -> ValidityNow? {
                guard reports, !checkTime.basis.isNow else { return nil }
                if known { return ValidityNow(date: now, valid: true, detail: validText) }
                let result = validate()
                return ValidityNow(
                    date: now, valid: result.isValid, detail: result.isValid ? validText : explain(result),
                    expiredSince: result.error == .certHasExpired)
            }
        }
    }
}
