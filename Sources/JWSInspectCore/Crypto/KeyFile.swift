internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A developer's key file: an App Store Connect In-App Purchase key as downloaded
/// (`AuthKey_<KEYID>.p8`: PKCS#8 PEM `BEGIN PRIVATE KEY`, EC P-256), or its public half as a
/// PEM `BEGIN PUBLIC KEY` (as `openssl ec -pubout` prints it).
package struct KeyFile: Sendable {
    /// The path as given.
    package let path: String
    /// The public key (of the private key, when the file holds one).
    package let publicKey: PublicKey
    /// The private key, when the file holds one.
    package let privateKey: PrivateKey?
    /// The key ID the file's name carries (`AuthKey_2X9R4HXF34.p8`), if any.
    package let keyIDFromName: String?

    /// The largest key file read: a P-256 key PEM is a few hundred bytes.
    package static let sizeLimit = 64 * 1024

    /// Why a key file cannot be used.
    package enum LoadError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file cannot be read (missing, permission, a directory): carries the path and the reason.
        case unreadable(path: String, reason: String)
        /// The file is read but is not a usable key: carries the path and what it is.
        case unusable(path: String, what: String)

        package var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read key file '\(path)': \(reason)"
            case .unusable(let path, let what): "key file '\(path)' is \(what)"
            }
        }
    }

    /// Reads and parses the key file at `path`.
    package static func load(path: String) throws(LoadError) -> KeyFile {
        try KeyFile(bytes: readFile(path), path: path)
    }

    /// Parses a key file's bytes; `path` names it in errors and gives the key ID.
    package init(bytes: [UInt8], path: String) throws(LoadError) {
        self.path = path
        self.keyIDFromName = Self.keyID(fromFileName: path)
        func unusable(_ what: String) -> LoadError { .unusable(path: path, what: what) }
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else { throw unusable("empty") }
        guard let label = Self.firstPEMLabel(bytes) else {
            throw unusable(
                "not a PEM key (no -----BEGIN line); an App Store Connect key is a .p8 file with BEGIN PRIVATE KEY")
        }
        switch label {
        case "PRIVATE KEY":
            let key = try Self.readPrivateKey(bytes, path: path)
            self.privateKey = key
            self.publicKey = key.publicKey
        case "PUBLIC KEY":
            self.privateKey = nil
            self.publicKey = try Self.readPublicKey(bytes, path: path)
        case "ENCRYPTED PRIVATE KEY":
            throw unusable(
                "an encrypted private key; decrypt it first (openssl pkcs8 -in KEY -out AuthKey_KEYID.p8 -nocrypt)")
        case "EC PRIVATE KEY":
            throw unusable(
                "an EC private key in the SEC1 form, not PKCS#8; convert it (openssl pkcs8 -topk8 -nocrypt -in KEY)")
        case "RSA PRIVATE KEY", "RSA PUBLIC KEY":
            throw unusable("an RSA key; App Store Connect keys are EC P-256")
        case "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE":
            throw unusable("a certificate, not a key; give the .p8 key or its public key PEM")
        default:
            throw unusable("a PEM \(Excerpt.of(label, limit: 40)), not a key")
        }
    }

    /// The key ID in a file name as App Store Connect names downloads: `AuthKey_<KEYID>.p8`
    /// or `SubscriptionKey_<KEYID>.p8` (letters and digits), else nil.
    package static func keyID(fromFileName path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        for prefix in ["AuthKey_", "SubscriptionKey_"] where name.hasPrefix(prefix) && name.hasSuffix(".p8") {
            let id = name.dropFirst(prefix.count).dropLast(3)
            let alphanumeric = id.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
            if !id.isEmpty, alphanumeric { return String(id) }
        }
        return nil
    }

    /// Whether the file at `path` may be read by its group or by others (mode bits 044): a
    /// private key should be readable by its owner only.
    package static func isReadableByGroupOrOthers(path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & (S_IRGRP | S_IROTH) != 0
    }

    // MARK: Reading

    private static func readFile(_ path: String) throws(LoadError) -> [UInt8] {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .unreadable(path: path, reason: "it is a directory")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes += chunk.prefix(count)
            if bytes.count > sizeLimit {
                throw .unusable(path: path, what: "over \(sizeLimit / 1024) KiB, not a key")
            }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
    }

    /// The label of the first `-----BEGIN <label>-----` line, or nil.
    static func firstPEMLabel(_ bytes: [UInt8]) -> String? {
        let begin = Array("-----BEGIN ".utf8)
        guard let start = bytes.firstRange(of: begin)?.upperBound else { return nil }
        let rest = bytes[start...]
        guard let end = rest.firstRange(of: Array("-----".utf8))?.lowerBound,
            !rest[start..<end].contains(0x0a)
        else { return nil }
        return String(decoding: rest[start..<end], as: UTF8.self)
    }

    /// A password callback that refuses: OpenSSL never prompts on the terminal.
    private static let noPassword:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?)
            -> Int32 = { _, _, _, _ in -1 }

    private static func readPrivateKey(_ bytes: [UInt8], path: String) throws(LoadError) -> PrivateKey {
        let key = withBIO(bytes) { PEM_read_bio_PrivateKey($0, nil, noPassword, nil) }
        guard let key else {
            OpenSSLError.drain()
            throw .unusable(path: path, what: "a PRIVATE KEY block OpenSSL cannot read (damaged or not PKCS#8)")
        }
        if let problem = notP256(key, role: "private") {
            EVP_PKEY_free(key)
            throw .unusable(path: path, what: problem)
        }
        guard let privateKey = PrivateKey(taking: key) else {
            throw .unusable(path: path, what: "an EC P-256 private key whose public half OpenSSL cannot derive")
        }
        return privateKey
    }

    private static func readPublicKey(_ bytes: [UInt8], path: String) throws(LoadError) -> PublicKey {
        let key = withBIO(bytes) { PEM_read_bio_PUBKEY($0, nil, noPassword, nil) }
        guard let key else {
            OpenSSLError.drain()
            throw .unusable(path: path, what: "a PUBLIC KEY block OpenSSL cannot read (damaged)")
        }
        if let problem = notP256(key, role: "public") {
            EVP_PKEY_free(key)
            throw .unusable(path: path, what: problem)
        }
        return PublicKey(taking: key)
    }

    /// What is wrong with a key that is not EC P-256 ("an RSA 2048 private key; …"), or nil.
    private static func notP256(_ key: OpaquePointer, role: String) -> String? {
        let summary = PublicKey.summary(of: key)
        guard summary != "EC P-256" else { return nil }
        return "an \(summary) \(role) key; App Store Connect keys are EC P-256 (ES256)"
    }

    private static func withBIO(_ bytes: [UInt8], _ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        bytes.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(clamping: buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}
