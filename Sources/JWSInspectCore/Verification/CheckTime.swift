package import FoundationEssentials

extension Inspection {
    /// The moment certificates were checked at, and why that moment.
    package struct CheckTime: Sendable {
        package let date: Date
        package let basis: Basis

        /// "at signedDate 2025-01-01T00:00:00.000Z", as messages name it.
        package var phrase: String { "at \(basis) \(ISO8601.string(date))" }

        /// Why certificates were checked when they were. Its `description` is the JSON
        /// `checkTime.basis`: "signedDate", "--at" (as the caller's `HintWording` names a fixed
        /// time), "now", "now (no signedDate in the payload)".
        package enum Basis: Sendable, Hashable, CustomStringConvertible {
            /// The envelope's signing time, by the field it was read from ("signedDate",
            /// "receiptCreationDate", a receipt's "receipt_creation_date").
            case signingTime(field: String)
            /// A moment the caller fixed (`TimePolicy.fixed`), by the name the caller's `HintWording`
            /// gives `Hint.fixedTime` (the command line's `--at`).
            case fixed(named: String)
            /// Now, as the time policy asks (or for data checked when it is used: developer-signed).
            case now
            /// Now, because the signing time the envelope should carry is unusable.
            case nowInstead(of: SigningTimeField, Unusable)

            /// Why a signing time is unusable.
            package enum Unusable: Sendable, Hashable {
                /// The envelope has no such field (or it is not of the field's type).
                case absent
                /// The field is of its type but names no date (1e22, a 30-digit integer, "yesterday").
                case notADate
            }

            /// True when the check time is the time of inspection: validity now is then the verdict itself.
            package var isNow: Bool {
                switch self {
                case .now, .nowInstead: true
                case .signingTime, .fixed: false
                }
            }

            package var description: String {
                switch self {
                case .signingTime(let field): field
                case .fixed(let name): name
                case .now: "now"
                case .nowInstead(let field, .absent): "now (no \(field.name) in \(field.container))"
                case .nowInstead(let field, .notADate): "now (\(field.name) is not a valid date)"
                }
            }
        }

        /// A field that carries an envelope's signing time, and what messages call its container.
        package struct SigningTimeField: Sendable, Hashable {
            /// "signedDate", "receipt_creation_date".
            package let name: String
            /// "the payload", "the receipt".
            package let container: String
        }

        /// What an envelope says about its signing time, read by the envelope (a JWS payload's
        /// `signedDate`, a receipt's field 12) and decided on by `decide`, for every envelope alike.
        enum SigningTime {
            /// A usable signing time, and the field it came from.
            case date(Date, field: String)
            /// No usable signing time: the field that should carry one, why, and the note to add.
            case unusable(SigningTimeField, Basis.Unusable, note: String?)
            /// Data checked when it is used, never at a signing time (developer-signed tokens).
            case checkedWhenUsed
        }

        /// The one rule for when certificates are checked: the caller's fixed moment, now, or the
        /// envelope's signing time (now, with a note, when it has no usable one).
        ///
        /// - Parameters:
        ///   - hints: name a fixed moment (`Hint.fixedTime`).
        ///   - signingTime: read only under `.signingTime`.
        static func decide(
            _ policy: VerificationOptions.TimePolicy, now: Date, hints: any HintWording,
            signingTime: () -> SigningTime
        ) -> (CheckTime, note: String?) {
            switch policy {
            case .now:
                return (CheckTime(date: now, basis: .now), nil)
            case .fixed(let date):
                return (CheckTime(date: date, basis: .fixed(named: hints.word(.fixedTime))), nil)
            case .signingTime:
                switch signingTime() {
                case .date(let date, let field):
                    return (CheckTime(date: date, basis: .signingTime(field: field)), nil)
                case .unusable(let field, let why, let note):
                    return (CheckTime(date: now, basis: .nowInstead(of: field, why)), note)
                case .checkedWhenUsed:
                    return (CheckTime(date: now, basis: .now), nil)
                }
            }
        }
    }
}
