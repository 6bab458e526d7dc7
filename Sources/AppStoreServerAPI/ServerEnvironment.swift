internal import FoundationEssentials

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The two environments the App Store Server API answers in, and where each is reached.
package enum ServerEnvironment: String, CaseIterable, Sendable {
    case production = "Production"
    case sandbox = "Sandbox"

    /// Apple's recommended base URL (since 2026-05-05; the `itunes` domains still work).
    package var defaultBaseURL: BaseURL {
        switch self {
        case .production: BaseURL(checked: "https://api.storekit.apple.com")
        case .sandbox: BaseURL(checked: "https://api.storekit-sandbox.apple.com")
        }
    }
}

/// A base URL requests go to: `https://` anywhere, or plain `http://` to a loopback host only
/// (a local proxy or test server), so that a bearer token never crosses a network unencrypted.
///
/// The host is read as libcurl will read it: an IPv4 or IPv6 address only in its canonical form
/// (`127.0.0.1`, `[::1]`), since libcurl looks up a form it does not take as an address
/// (`127.0.0.099`, `127.1`) by DNS; names only in letters, digits, `-` and `.`. The text kept is
/// rebuilt from the parts checked (scheme and host lowercased, the port as a number), so the
/// URL requested is the one judged.
package struct BaseURL: Sendable, Equatable, CustomStringConvertible {
    /// Scheme, host, port and path prefix, without a trailing slash (paths start with `/inApps`).
    package let text: String

    package var description: String { text }

    fileprivate init(checked text: String) {
        self.text = text
    }

    /// Why `text` cannot be a base URL, or the URL.
    package static func parse(_ text: String) -> Result<BaseURL, BaseURLError> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let encodedHost = components.percentEncodedHost, !encodedHost.isEmpty
        else { return .failure(BaseURLError("'\(text)' is not an absolute URL such as https://api.example.com")) }
        guard components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else { return .failure(BaseURLError("'\(text)' must not carry a query, fragment or user name")) }
        guard scheme == "https" || scheme == "http" else {
            return .failure(BaseURLError("'\(text)' must be an https:// URL (http:// only for loopback hosts)"))
        }
        guard let host = Host(encodedHost) else {
            return .failure(
                BaseURLError(
                    "'\(text)': '\(encodedHost)' is neither a host name (letters, digits, - and .) nor an IP address "
                        + "in its usual form"))
        }
        if scheme == "http", !host.isLoopback {
            return .failure(
                BaseURLError(
                    "'\(text)' is plain http to a host that is not loopback: the bearer token would cross the "
                        + "network unencrypted (use https, or http://127.0.0.1 / localhost / [::1]; an address only "
                        + "as written there, since another form is looked up by DNS)"))
        }
        var port = ""
        if let number = components.port {
            guard (1...65535).contains(number) else {
                return .failure(BaseURLError("'\(text)': port \(number) is not 1 to 65535"))
            }
            port = ":\(number)"
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        return .success(BaseURL(checked: scheme + "://" + host.text + port + path))
    }

    /// A URL's host, as libcurl reads it.
    struct Host {
        /// As it goes into the URL: an IPv6 address in brackets.
        let text: String
        /// `localhost`, an address in 127.0.0.0/8, or ::1.
        let isLoopback: Bool

        /// The host of a URL (percent-encoded as written): a canonical IPv4 address, a canonical
        /// IPv6 address in brackets, or a name; nil for anything else.
        init?(_ encoded: String) {
            if encoded.hasPrefix("[") {
                guard encoded.hasSuffix("]"),
                    let address = Self.canonical(String(encoded.dropFirst().dropLast()), family: AF_INET6)
                else { return nil }
                text = "[" + address.text + "]"
                isLoopback = address.bytes == [UInt8](repeating: 0, count: 15) + [1]
                return
            }
            let lowercased = encoded.lowercased()
            let bytes = Array(lowercased.utf8)
            if bytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }) {
                // Digits and dots are an IPv4 address to libcurl (or a DNS name when not canonical).
                guard let address = Self.canonical(lowercased, family: AF_INET) else { return nil }
                text = address.text
                isLoopback = address.bytes[0] == 127
                return
            }
            let isName = bytes.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E
            }
            guard isName, bytes.first != 0x2E, bytes.first != 0x2D, !lowercased.contains("..") else { return nil }
            // A trailing dot is a fully qualified name elsewhere, but never loopback here.
            text = lowercased
            isLoopback = lowercased == "localhost"
        }

        /// The address `text` names when it is written exactly as `inet_ntop` writes it; nil otherwise.
        private static func canonical(_ text: String, family: Int32) -> (text: String, bytes: [UInt8])? {
            let size = family == AF_INET ? 4 : 16
            var bytes = [UInt8](repeating: 0, count: size)
            guard inet_pton(family, text, &bytes) == 1 else { return nil }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            let written = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return written == text.lowercased() ? (written, bytes) : nil
        }
    }
}

/// Why a base URL was refused.
package struct BaseURLError: Error, Sendable, Equatable {
    package let message: String

    init(_ message: String) {
        self.message = message
    }
}
