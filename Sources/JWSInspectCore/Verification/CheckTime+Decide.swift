internal import FoundationEssentials

extension Inspection.CheckTime {
    /// The payload members a JWS's signing time is read from.
    static let payloadMembers = ["signedDate", "receiptCreationDate"]

    /// When a JWS's certificates are checked under `options.timePolicy`, and a note when the
    /// payload's signing time is unusable.
    static func decide(
        options: VerificationOptions, payload: [String: JSONValue], kind: PayloadKind
    ) -> (Inspection.CheckTime, note: String?) {
        decide(options.timePolicy, now: options.now, hints: options.hints) {
            // A developer-signed token is checked when it is used: now.
            if kind.isDeveloperSigned { return .checkedWhenUsed }
            return signingTime(payload: payload, kind: kind)
        }
    }

    /// Apple's rule: signedDate, else receiptCreationDate (app transactions).
    private static func signingTime(payload: [String: JSONValue], kind: PayloadKind) -> SigningTime {
        let (name, found): (String, JSONValue?) =
            if let signed = payload["signedDate"] {
                ("signedDate", signed)
            } else if let created = payload["receiptCreationDate"] {
                ("receiptCreationDate", created)
            } else {
                (kind.signingTimeField, nil)
            }
        let field = SigningTimeField(name: name, container: "the payload")
        if let milliseconds = found?.numberValue, let date = Timestamp.date(milliseconds: milliseconds) {
            return .date(date, field: name)
        } else if let value = found, value.numberValue != nil {
            // A number, but no date (1e22, a 30-digit integer): no usable signing time.
            return .unusable(
                field, .notADate,
                note: "\(name) is \(PayloadDisplay.rawText(value)), not a valid date (\(Timestamp.rangeDescription)); "
                    + "certificates checked now")
        } else {
            let note = found.map { "\(name) is \($0.kindDescription), not milliseconds; certificates checked now" }
            return .unusable(field, .absent, note: note)
        }
    }
}
