extension PayloadDisplay {
    /// A StoreKit 1 transaction receipt's date in milliseconds, as text (`purchase-date-ms`, and
    /// `expires-date` in a subscription's): rendered as the date, range-checked as every App
    /// Store date is (`Timestamp`). Text that is no such number is shown as written, flagged
    /// when the name says milliseconds (`strict`: a `-ms` name).
    static func millisecondsText(_ text: String, raw: String, strict: Bool, style: DateStyle) -> Rendering {
        guard let date = Timestamp.date(millisecondsText: text) else {
            return Rendering(
                raw: raw, flag: strict ? "expected milliseconds since 1970 (\(Timestamp.rangeDescription))" : nil)
        }
        return Rendering(raw: raw, date: date, style: style, relativeDate: date)
    }
}
