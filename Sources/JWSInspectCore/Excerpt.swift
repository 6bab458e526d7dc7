/// Untrusted text as messages show it: at most about 60 characters. A pasted token, a file
/// of garbage or a hostile header value never floods a message or a check's detail.
package enum Excerpt {
    package static let limit = 60

    package static func of(_ text: String, limit: Int = Excerpt.limit) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}
