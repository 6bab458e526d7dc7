internal import COpenSSL

/// OpenSSL's per-thread error queue, captured as text right after a failing call.
package enum OpenSSLError {
    /// Drains the calling thread's error queue and returns its entries, oldest first.
    ///
    /// Call it right after the failing OpenSSL function; also call it after an
    /// expected failure so that a stale entry never leaks into a later report.
    @discardableResult
    package static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }

    /// The queue's entries joined into one fragment, or `fallback` when it is empty.
    package static func describe(or fallback: String) -> String {
        let messages = drain()
        return messages.isEmpty ? fallback : messages.joined(separator: "; ")
    }
}
