import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Parses one HTTP/1.1 request (RFC 9112) from bytes as they arrive, for `MockHTTPServer`.
///
/// It reads untrusted bytes, so it never traps: whatever it cannot take becomes `.refused` with a
/// status and a reason. Not supported (refused): `Transfer-Encoding` (chunked bodies: 501, send
/// `Content-Length`), targets other than origin-form (`/path?query`), obsolete line folding,
/// `Expect` other than `100-continue` (417), more than `maximumRequestBytes` in all (413) or a
/// header section over `maximumHeaderBytes` (431). Bytes after the body (pipelining) are ignored.
struct HTTPRequestParser {
    /// The most a request may take, header section and body together: 1 MiB.
    static let maximumRequestBytes = 1 << 20
    /// The most the request line and header fields may take: 64 KiB.
    static let maximumHeaderBytes = 64 * 1024

    /// What to do next.
    enum Step {
        /// Read more bytes and `append` them.
        case needMoreBytes
        /// Send `HTTP/1.1 100 Continue` (the client waits for it before sending the body), then
        /// step again.
        case sendContinue
        /// Answer with this status and plain-text reason, then close.
        case refused(Int, String)
        /// The whole request is here.
        case complete(MockHTTPServer.Request)
    }

    private var buffer: [UInt8] = []
    private var head: Head?
    private var continueSent = false

    /// The parsed request line and header fields, and where the body starts in `buffer`.
    private struct Head {
        var request: MockHTTPServer.Request
        var bodyStart: Int
        var contentLength: Int
        var expectsContinue: Bool
    }

    /// Adds bytes read from the connection.
    mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Parses what has arrived so far.
    mutating func step() -> Step {
        if head == nil {
            guard let end = Self.headerEnd(in: buffer) else {
                if buffer.count > Self.maximumHeaderBytes {
                    return .refused(431, "the header section is over \(Self.maximumHeaderBytes) bytes")
                }
                return .needMoreBytes
            }
            switch Self.parseHead(buffer[..<end]) {
            case .failure(let refusal):
                return .refused(refusal.status, refusal.reason)
            case .success(var parsed):
                parsed.bodyStart = end + 4
                guard parsed.bodyStart + parsed.contentLength <= Self.maximumRequestBytes else {
                    return .refused(413, "the request is over \(Self.maximumRequestBytes) bytes")
                }
                head = parsed
            }
        }
        guard var head else { return .needMoreBytes }
        let available = buffer.count - head.bodyStart
        if available >= head.contentLength {
            head.request.body = Array(buffer[head.bodyStart..<(head.bodyStart + head.contentLength)])
            return .complete(head.request)
        }
        if head.expectsContinue, !continueSent, available == 0 {
            continueSent = true
            return .sendContinue
        }
        return .needMoreBytes
    }

    /// The index of the CRLF CRLF that ends the header section, or nil.
    private static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private struct Refusal: Error {
        var status: Int
        var reason: String
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<Head, Refusal> {
        func refuse(_ reason: String, _ status: Int = 400) -> Result<Head, Refusal> {
            .failure(Refusal(status: status, reason: reason))
        }
        let lines = split(bytes)
        guard let requestLine = lines.first else { return refuse("no request line") }
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return refuse("the request line is not METHOD SP TARGET SP VERSION") }
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else { return refuse("the method is not a token") }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return version.hasPrefix("HTTP/") ? refuse("\(version) is not supported", 505) : refuse("no HTTP version")
        }
        guard parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return refuse("the target is not an origin-form /path?query")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let first = line.first, first != 32, first != 9 else { return refuse("obsolete line folding") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return refuse("a header line has no colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return refuse("a header name is not a token") }
            var value = line[(colon + 1)...]
            while let byte = value.first, byte == 32 || byte == 9 { value.removeFirst() }
            while let byte = value.last, byte == 32 || byte == 9 { value.removeLast() }
            guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                return refuse("a header value holds a control character")
            }
            headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        func values(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name }.map(\.value) }

        if version == "HTTP/1.1", values("host").count != 1 { return refuse("HTTP/1.1 needs exactly one Host") }
        if !values("transfer-encoding").isEmpty {
            return refuse("Transfer-Encoding (chunked bodies) is not supported; send Content-Length", 501)
        }
        let lengths = Set(values("content-length"))
        guard lengths.count <= 1 else { return refuse("Content-Length values differ") }
        var contentLength = 0
        if let text = lengths.first {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return refuse("Content-Length is not a number")
            }
            guard text.count <= 8, let length = Int(text), length <= maximumRequestBytes else {
                return refuse("the request is over \(maximumRequestBytes) bytes", 413)
            }
            contentLength = length
        }
        let expectations = values("expect")
        guard expectations.allSatisfy({ $0.lowercased() == "100-continue" }) else {
            return refuse("only Expect: 100-continue is supported", 417)
        }

        let target = String(decoding: parts[1], as: UTF8.self)
        let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
        var query: [MockHTTPServer.QueryItem] = []
        if pathEnd < target.endIndex {
            for item in target[target.index(after: pathEnd)...].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = pair[0].removingPercentEncoding,
                    let value = (pair.count > 1 ? pair[1] : "").removingPercentEncoding
                else { return refuse("the query holds an invalid percent-encoding") }
                query.append(.init(name, value))
            }
        }
        let request = MockHTTPServer.Request(
            method: String(decoding: parts[0], as: UTF8.self), target: target, path: String(target[..<pathEnd]),
            query: query, headers: headers, body: [])
        return .success(
            Head(request: request, bodyStart: 0, contentLength: contentLength, expectsContinue: !expectations.isEmpty))
    }

    /// The lines of a header section split at CRLF; a lone CR or LF makes a line unusable.
    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[start..<bytes.endIndex])
        // A bare CR or LF left in a line is refused by the value and token checks (control bytes).
        return lines
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// The usual reason phrase of a status code ("Unknown" for codes not listed).
    static func reason(for status: Int) -> String {
        let reasons = [
            100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently",
            302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 411: "Length Required",
            413: "Content Too Large", 415: "Unsupported Media Type", 417: "Expectation Failed",
            429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
            501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
            505: "HTTP Version Not Supported",
        ]
        return reasons[status] ?? "Unknown"
    }

    /// `date` as an RFC 9110 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), whole seconds.
    static func imfFixdate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
