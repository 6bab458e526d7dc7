package import FoundationEssentials

/// The index `openssl ocsp -index` answers from, in `openssl ca`'s format, as `mint ca
/// --ocsp-url` writes it and the test suites' responders use it.
package enum OCSPIndex {
    /// One certificate's line: status (V valid, R revoked), expiry (2039, never read by the
    /// responder), revocation time and reason (empty when valid), serial in hex (an even number
    /// of uppercase digits, as openssl looks it up), file name, subject `/CN=commonName`.
    package static func line(serial: UInt64, commonName: String, revoked: (date: Date, reason: String)? = nil) -> String
    {
        var hex = String(serial, radix: 16, uppercase: true)
        if hex.count % 2 == 1 { hex = "0" + hex }
        let revocation = revoked.map { "\(utcTime($0.date)),\($0.reason)" } ?? ""
        return "\(revoked == nil ? "V" : "R")\t391231235959Z\t\(revocation)\t\(hex)\tunknown\t/CN=\(commonName)\n"
    }

    /// "YYMMDDHHMMSSZ" (ASN.1 UTCTime, as the index holds times).
    static func utcTime(_ date: Date) -> String {
        let digits = date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt)).filter(\.isNumber)
        return String(digits.dropFirst(2).prefix(12)) + "Z"
    }
}
