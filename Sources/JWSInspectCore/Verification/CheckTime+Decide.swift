internal import FoundationEssentials

extension Inspection.CheckTime {
    /// The payload members the check time is read from.
    static let payloadMembers = ["signedDate", "receiptCreationDate"]

    /// When certificates are checked under `options.timePolicy`, and a note when the payload's
    /// signing time is unusable.
    static func decide(
        options: VerificationOptions, payload: [String: JSONValue], kind: PayloadKind
    ) -> (Inspection.CheckTime, note: String?) {
        switch options.timePolicy {
        case .now:
            return (.init(date: options.now, basis: "now"), nil)
        case .fixed(let date):
            return (.init(date: date, basis: "--at"), nil)
        case .signingTime where kind.isDeveloperSigned:
            // A developer-signed token is checked when it is used: now.
            return (.init(date: options.now, basis: "now"), nil)
        case .signingTime:
            // Apple's rule: signedDate, else receiptCreationDate (app transactions), else now.
            let (field, found): (String, JSONValue?) =
                if let signed = payload["signedDate"] {
                    ("signedDate", signed)
                } else if let created = payload["receiptCreationDate"] {
                    ("receiptCreationDate", created)
                } else {
                    (kind.signingTimeField, nil)
                }
            if let milliseconds = found?.numberValue, let date = Timestamp.date(milliseconds: milliseconds) {
                return (.init(date: date, basis: field), nil)
            } else if let value = found, value.numberValue != nil {
                // A number, but no date (1e22, a 30-digit integer): no usable signing time.
                return (
                    .init(date: options.now, basis: "now (\(field) is not a valid date)"),
                    "\(field) is \(PayloadDisplay.rawText(value)), not a valid date (\(Timestamp.rangeDescription)); "
                        + "certificates checked now"
                )
            } else {
                let note = found.map { "\(field) is \($0.kindDescription), not milliseconds; certificates checked now" }
                return (.init(date: options.now, basis: "now (no \(field) in the payload)"), note)
            }
        }
    }
}
