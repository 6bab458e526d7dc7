public import FoundationEssentials

extension Inspection {
    /// Whether the certificates are valid at the time of inspection too, when they were checked
    /// at another moment (the signing time, `--at`). Decided by the verifier in one place
    /// (`Run.recordValidityNow`) and worded here, for every renderer.
    public struct ValidityNow: Sendable {
        /// The time of inspection.
        public let date: Date
        public let valid: Bool
        /// "the chain is also valid now (2026-…)", or why it is not.
        public let detail: String

        /// The warning beside a verdict whose certificates are valid at the check time, not now.
        public static let warning = "NOT valid now"

        /// What such a verdict means, after the warning and its detail.
        public static let advice = "the verdict follows the signing time (use --at now to require current validity)"

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
        public func mark(_ certificate: CertificateSummary) -> String? {
            certificate.isWithinValidity(at: date) ? nil : "not valid now"
        }
    }
}
