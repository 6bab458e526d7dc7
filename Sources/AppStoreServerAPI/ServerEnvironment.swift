internal import FoundationEssentials

/// The two environments the App Store Server API answers in, and where each is reached.
public enum ServerEnvironment: String, CaseIterable, Sendable {
    case production = "Production"
    case sandbox = "Sandbox"

    /// Apple's recommended base URL (since 2026-05-05; the `itunes` domains still work).
    public var defaultBaseURL: BaseURL {
        switch self {
        case .production: BaseURL(checked: "https://api.storekit.apple.com")
        case .sandbox: BaseURL(checked: "https://api.storekit-sandbox.apple.com")
        }
    }
}

/// A base URL requests go to: `https://` anywhere, or plain `http://` to a loopback host only
/// (a local proxy or test server), so that a bearer token never crosses a network unencrypted.
public struct BaseURL: Sendable, Equatable, CustomStringConvertible {
    /// Scheme, host and port, without a trailing slash (paths start with `/inApps`).
    public let text: String

    public var description: String { text }

    fileprivate init(checked text: String) {
        self.text = text
    }

    /// Why `text` cannot be a base URL, or the URL.
    public static func parse(_ text: String) -> Result<BaseURL, BaseURLError> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return .failure(BaseURLError("'\(text)' is not an absolute URL such as https://api.example.com")) }
        guard components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else { return .failure(BaseURLError("'\(text)' must not carry a query, fragment or user name")) }
        switch scheme {
        case "https":
            break
        case "http":
            guard isLoopback(host) else {
                return .failure(
                    BaseURLError(
                        "'\(text)' is plain http to a host that is not loopback: the bearer token would cross the "
                            + "network unencrypted (use https, or http://127.0.0.1 / localhost / [::1])"))
            }
        default:
            return .failure(BaseURLError("'\(text)' must be an https:// URL (http:// only for loopback hosts)"))
        }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return .success(BaseURL(checked: trimmed))
    }

    /// `localhost`, 127.0.0.0/8 or ::1.
    static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }
    }
}

/// Why a base URL was refused.
public struct BaseURLError: Error, Sendable, Equatable {
    public let message: String

    init(_ message: String) {
        self.message = message
    }
}
