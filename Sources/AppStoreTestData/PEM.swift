internal import FoundationEssentials

/// PEM and base64 text encodings used by the test PKI.
package enum PEM {
    /// `-----BEGIN <label>-----\n`, the standard base64 of `der` in 64-character lines,
    /// and `\n-----END <label>-----\n` (RFC 7468 strict form, `\n` line endings).
    package static func encode(_ der: [UInt8], label: String) -> String {
        let body = Data(der).base64EncodedString()
        var lines: [Substring] = []
        var start = body.startIndex
        while start < body.endIndex {
            let end = body.index(start, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex
            lines.append(body[start..<end])
            start = end
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }
}
