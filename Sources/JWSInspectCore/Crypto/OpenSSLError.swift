internal import COpenSSL

/// OpenSSL's per-thread error queue, captured right after a failing call: each entry as data
/// (its packed code, library and reason) and as OpenSSL's own text.
package enum OpenSSLError {
    /// One entry of the queue.
    package struct Entry: Sendable, Equatable, CustomStringConvertible {
        /// The packed code `ERR_get_error` returned.
        package let code: UInt
        /// The library that raised it (`ERR_LIB_ASN1`, `ERR_LIB_X509`, `ERR_LIB_EVP`, …).
        package let library: Int32
        /// The library's reason code (`ASN1_R_HEADER_TOO_LONG`, …).
        package let reason: Int32
        /// OpenSSL's words for the library ("asn1 encoding routines"), when it has them.
        package let libraryName: String?
        /// OpenSSL's words for the reason ("header too long"), when it has them.
        package let reasonText: String?
        /// `ERR_error_string_n`'s line: "error:0680007B:asn1 encoding routines::header too long".
        package let description: String

        init(code: UInt) {
            self.code = code
            library = ERR_GET_LIB(code)
            reason = ERR_GET_REASON(code)
            libraryName = ERR_lib_error_string(code).map { String(cString: $0) }
            reasonText = ERR_reason_error_string(code).map { String(cString: $0) }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            description = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Drains the calling thread's error queue and returns its entries, oldest first.
    ///
    /// Call it right after the failing OpenSSL function; also call it after an
    /// expected failure so that a stale entry never leaks into a later report.
    @discardableResult
    package static func drainEntries() -> [Entry] {
        var entries: [Entry] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            entries.append(Entry(code: code))
        }
        return entries
    }

    /// Drains the queue (`drainEntries`) and returns each entry's text.
    @discardableResult
    package static func drain() -> [String] {
        drainEntries().map(\.description)
    }

    /// The queue's entries joined into one fragment, or `fallback` when it is empty.
    package static func describe(or fallback: String) -> String {
        describe(drainEntries(), or: fallback)
    }

    /// Entries already drained, joined into one fragment, or `fallback` when there are none.
    package static func describe(_ entries: [Entry], or fallback: String) -> String {
        entries.isEmpty ? fallback : entries.map(\.description).joined(separator: "; ")
    }
}
