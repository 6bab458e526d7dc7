internal import COpenSSL

/// Facts about the OpenSSL library in use.
package enum OpenSSLInfo {
    /// OpenSSL's own version text, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    package static var version: String {
        guard let text = OpenSSL_version(OPENSSL_VERSION) else { return "OpenSSL (unknown version)" }
        return String(cString: text)
    }
}
