/// The detail of an expectation on one payload field (`bundle-id`, `app-apple-id`,
/// `environment`): the value seen and the one expected, worded when read.
struct Comparison: CheckDetail {
    let field: String
    /// nil when the payload has no such field.
    let actual: String?
    let expected: String
    /// Quote both values on a mismatch (bundle IDs differ by one character more often than not).
    var quoted = false

    var text: String {
        let expected = quoted ? "\"\(self.expected)\"" : self.expected
        guard let actual else { return "the payload has no \(field); expected \(expected)" }
        if actual == self.expected { return "\(field) is \(actual)" }
        return "\(field) is \(quoted ? "\"\(actual)\"" : actual), expected \(expected)"
    }
}
