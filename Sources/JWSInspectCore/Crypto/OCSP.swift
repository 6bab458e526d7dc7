internal import COpenSSL
internal import FoundationEssentials

/// OCSP (RFC 6960) through OpenSSL's own client, the one `openssl ocsp -url` uses: the
/// responder a certificate names, the request for it, the HTTP exchange
/// (`OSSL_HTTP_transfer`, in libcrypto: no network library is linked) and the verification of
/// the answer. Nothing here keeps anything; `OCSPRequester` decides what to ask and keeps answers.
enum OCSP {
    /// The longest responder URL taken from a certificate.
    static let maximumURLLength = 2_048
    /// The largest answer read from a responder or a cache file (Apple's are about 2 KB).
    static let maximumResponseBytes = 64 * 1024
    /// The clock skew allowed either side of `thisUpdate` and `nextUpdate`: 60 seconds, as
    /// Apple's libraries allow (`MAX_SKEW`).
    static let clockSkew: TimeInterval = 60

    /// What a certificate's Authority Information Access says of its OCSP responder.
    enum Responder: Equatable {
        case url(String)
        /// No OCSP entry in the certificate.
        case none
        /// An entry jwsinspect does not ask: not `http://`, too long, or not printable ASCII.
        case unusable(String)
    }

    /// The first OCSP responder of `certificate`'s Authority Information Access.
    static func responder(of certificate: Certificate) -> Responder {
        var buffer = [CChar](repeating: 0, count: maximumURLLength + 1)
        let count = certificate.withUnsafeX509Pointer { COpenSSL_X509_first_ocsp_url($0, &buffer, buffer.count) }
        OpenSSLError.drain()
        if count == 0 { return .none }
        if count < 0 { return .unusable("its OCSP URL is longer than \(maximumURLLength) characters") }
        let url = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .unusable("its OCSP URL is not printable ASCII")
        }
        guard url.lowercased().hasPrefix("http://") else {
            return .unusable("its OCSP URL \(url) is not http:// (RFC 6960's transport; jwsinspect sends no TLS)")
        }
        return .url(url)
    }

    /// The request for `certificate` by `issuer` (a SHA-256 CertID, as Apple's libraries send;
    /// no nonce, so answers can be kept) and the name its answer is kept under: the hex SHA-256 of
    /// the CertID's DER.
    static func request(for certificate: Certificate, issuedBy issuer: Certificate) -> (
        der: [UInt8], key: String
    )? {
        guard let id = certificateID(certificate, issuer, EVP_sha256()) else { return nil }
        defer { OCSP_CERTID_free(id) }
        guard let idDER = DER.encode({ i2d_OCSP_CERTID(id, $0) }), let request = OCSP_REQUEST_new() else {
            OpenSSLError.drain()
            return nil
        }
        defer { OCSP_REQUEST_free(request) }
        // add0 takes the CertID: give it a copy, so `id` stays ours to free.
        guard let copy = OCSP_CERTID_dup(id) else { return nil }
        guard OCSP_request_add0_id(request, copy) != nil else {
            OCSP_CERTID_free(copy)
            OpenSSLError.drain()
            return nil
        }
        guard let requestDER = DER.encode({ i2d_OCSP_REQUEST(request, $0) }) else { return nil }
        return (requestDER, Digest.sha256(idDER).hexString())
    }

    /// A verified answer about one certificate.
    struct Finding: Equatable {
        enum Status: Equatable {
            case good
            case revoked(date: Date, reason: String?)
        }
        let status: Status
        let thisUpdate: Date
        /// When newer information will be there (an answer without one is refused).
        let nextUpdate: Date
    }

    /// Verifies an OCSP response (DER) about `certificate`, issued by `issuer`, at `now`: a
    /// successful response, signed by the issuer or by a responder the issuer delegated
    /// (`id-kp-OCSPSigning`, issued by it, valid at `now`), about this certificate, current
    /// (`thisUpdate` not after `now`, `nextUpdate` not before it, 60 seconds of skew either
    /// way, as Apple allows; an answer without `nextUpdate` is refused), and good or revoked.
    ///
    /// - Returns: the finding, or why the answer is not one (never a guess: unknown, unsigned,
    ///   stale and foreign answers are all failures).
    static func verify(response bytes: [UInt8], certificate: Certificate, issuer: Certificate, now: Date) -> Result<
        Finding, Failure
    > {
        defer { OpenSSLError.drain() }
        guard bytes.count <= maximumResponseBytes else { return .failure(.unusable("the answer is over 64 KiB")) }
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let response = d2i_OCSP_RESPONSE(nil, &cursor, buffer.count)
            guard let response, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                if let response { OCSP_RESPONSE_free(response) }
                return nil
            }
            return response
        }
        guard let response = parsed else { return .failure(.unusable("the answer is not a DER OCSP response")) }
        defer { OCSP_RESPONSE_free(response) }
        let responseStatus = OCSP_response_status(response)
        guard responseStatus == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            let text = String(cString: OCSP_response_status_str(Int(responseStatus)))
            return .failure(.unusable("the responder refused to answer (\(text))"))
        }
        guard let basic = OCSP_response_get1_basic(response) else {
            return .failure(.unusable("the answer is not a basic OCSP response"))
        }
        defer { OCSP_BASICRESP_free(basic) }
        if let problem = verifySigner(basic, issuer: issuer, now: now) { return .failure(.unusable(problem)) }
        var status: Int32 = -1
        var reason: Int32 = -1
        var revoked: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        // The CertID the request used (SHA-256), or the SHA-1 one a responder may answer with.
        var found = false
        for md in [EVP_sha256(), EVP_sha1()] {
            guard let id = certificateID(certificate, issuer, md) else { continue }
            defer { OCSP_CERTID_free(id) }
            if OCSP_resp_find_status(basic, id, &status, &reason, &revoked, &thisUpdate, &nextUpdate) == 1 {
                found = true
                break
            }
        }
        guard found else { return .failure(.unusable("the answer is about another certificate")) }
        guard let thisDate = Certificate.date(thisUpdate) else {
            return .failure(.unusable("the answer's thisUpdate does not read"))
        }
        // No nextUpdate would make the answer good forever: with no nonce sent, anyone on the way
        // could replay an old one. Apple's libraries refuse such answers too.
        guard nextUpdate != nil else {
            return .failure(.unusable("the answer has no nextUpdate, so nothing bounds how long it holds"))
        }
        guard let nextDate = Certificate.date(nextUpdate) else {
            return .failure(.unusable("the answer's nextUpdate does not read"))
        }
        if thisDate > now.addingTimeInterval(clockSkew) {
            return .failure(.unusable("the answer is from the future (thisUpdate \(ISO8601.string(thisDate)))"))
        }
        if nextDate < now.addingTimeInterval(-clockSkew) {
            return .failure(.stale("the answer is stale (nextUpdate \(ISO8601.string(nextDate)) has passed)"))
        }
        switch status {
        case V_OCSP_CERTSTATUS_GOOD:
            return .success(Finding(status: .good, thisUpdate: thisDate, nextUpdate: nextDate))
        case V_OCSP_CERTSTATUS_REVOKED:
            guard let date = Certificate.date(revoked) else {
                return .failure(.unusable("the answer says revoked, with a revocation time that does not read"))
            }
            let reasonText = reason >= 0 ? String(cString: OCSP_crl_reason_str(Int(reason))) : nil
            return .success(
                Finding(status: .revoked(date: date, reason: reasonText), thisUpdate: thisDate, nextUpdate: nextDate))
        default:
            return .failure(.unusable("the responder does not know the certificate (status unknown)"))
        }
    }

    /// Why an answer is not a finding.
    enum Failure: Error, Equatable {
        /// Past its `nextUpdate`: a newer one may be had.
        case stale(String)
        /// Anything else: unsigned, signed by another key, unknown, not about the certificate.
        case unusable(String)

        var text: String {
            switch self {
            case .stale(let text), .unusable(let text): text
            }
        }
    }

    /// Nil when `basic` is signed by `issuer`, or by a responder `issuer` issued with
    /// `id-kp-OCSPSigning` and valid at `now`; else why not. The issuer is the only trust
    /// anchor (a partial chain): no other certificate, however trusted elsewhere, may answer.
    private static func verifySigner(_ basic: OpaquePointer, issuer: Certificate, now: Date) -> String? {
        guard let store = X509_STORE_new() else { return "OpenSSL could not make a store (X509_STORE_new)" }
        defer { X509_STORE_free(store) }
        guard let stack = COpenSSL_sk_X509_new_null() else { return "OpenSSL could not make a stack" }
        defer { COpenSSL_sk_X509_free(stack) }
        let verified: Int32 = issuer.withUnsafeX509Pointer { x509 in
            guard X509_STORE_add_cert(store, x509) == 1, COpenSSL_sk_X509_push(stack, x509) > 0,
                let parameters = X509_STORE_get0_param(store)
            else { return -1 }
            X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
            X509_VERIFY_PARAM_set_time(parameters, time_t(now.timeIntervalSince1970.rounded(.down)))
            // OCSP_NOEXPLICIT: a signer the issuer did not delegate is refused, never let through
            // by an explicit trust setting.
            return OCSP_basic_verify(basic, stack, store, UInt(OCSP_NOEXPLICIT))
        }
        guard verified == 1 else {
            let why = OpenSSLError.describe(or: "OCSP_basic_verify failed")
            return "the answer is not signed by the issuer or a responder it delegated (\(why))"
        }
        return nil
    }

    private static func certificateID(_ certificate: Certificate, _ issuer: Certificate, _ md: OpaquePointer?)
        -> OpaquePointer?
    {
        certificate.withUnsafeX509Pointer { subject in
            issuer.withUnsafeX509Pointer { issuerX509 in OCSP_cert_to_id(md, subject, issuerX509) }
        }
    }

    /// POSTs `request` to `url` (`application/ocsp-request`) with OpenSSL's HTTP client and
    /// returns the body of a 200 `application/ocsp-response` answer: no redirect followed, at
    /// most `maximumResponseBytes` read, the whole exchange within `timeout` seconds. The proxy
    /// named by `http_proxy` (and `no_proxy`) is used as `openssl ocsp` uses it. The connection
    /// is made here (`connect`), not by `OSSL_HTTP_transfer`, so that a refused one fails at once.
    static func post(_ request: [UInt8], to url: String, timeout: Int) -> Result<[UInt8], Failure> {
        defer { OpenSSLError.drain() }
        let deadline = time(nil) + time_t(timeout)
        var host: UnsafeMutablePointer<CChar>?
        var port: UnsafeMutablePointer<CChar>?
        var path: UnsafeMutablePointer<CChar>?
        var query: UnsafeMutablePointer<CChar>?
        var proxyHost: UnsafeMutablePointer<CChar>?
        var proxyPort: UnsafeMutablePointer<CChar>?
        var ssl: Int32 = 0
        defer {
            for pointer in [host, port, path, query, proxyHost, proxyPort] { COpenSSL_free(pointer) }
        }
        guard OSSL_HTTP_parse_url(url, &ssl, nil, &host, &port, nil, &path, &query, nil) == 1, ssl == 0,
            let host, let port, let path
        else { return .failure(.unusable("\(url) is not an http:// URL OpenSSL reads")) }
        var target = String(cString: path)
        if let query, query.pointee != 0 { target += "?" + String(cString: query) }
        // The proxy OSSL_HTTP_transfer would take: http_proxy (or HTTP_PROXY), unless no_proxy
        // names the host. Through one, the request line has the absolute URI (RFC 1945 5.1.2).
        var peer = (host: String(cString: host), port: String(cString: port), name: "")
        if let proxy = OSSL_HTTP_adapt_proxy(nil, nil, host, 0) {
            guard OSSL_HTTP_parse_url(proxy, nil, nil, &proxyHost, &proxyPort, nil, nil, nil, nil) == 1,
                let proxyHost, let proxyPort
            else { return .failure(.unusable("the proxy \(String(cString: proxy)) is not a URL OpenSSL reads")) }
            let authority = peer.host.contains(":") ? "[\(peer.host)]" : peer.host
            target = "http://\(authority):\(peer.port)" + target
            peer = (String(cString: proxyHost), String(cString: proxyPort), "the proxy ")
        }
        guard let connection = COpenSSL_BIO_new_nonblocking_connect(peer.host, peer.port) else {
            return .failure(.unusable("OpenSSL could not make a connection BIO for \(peer.host):\(peer.port)"))
        }
        defer { BIO_free_all(connection) }
        if let failure = connect(connection, to: peer, until: deadline, timeout: timeout) { return .failure(failure) }
        let body = request.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32(clamping: $0.count)) }
        guard let body else { return .failure(.unusable("OpenSSL could not make a buffer (BIO_new_mem_buf)")) }
        defer { BIO_free(body) }
        var signals = sigset_t()
        COpenSSL_block_sigpipe(&signals)
        defer { COpenSSL_restore_sigpipe(&signals) }
        // The connection is given both ways (bio and rbio): OpenSSL connects nothing itself, and
        // the rest of `timeout` bounds the exchange.
        let remaining = max(1, Int32(clamping: deadline - time(nil)))
        let answer = OSSL_HTTP_transfer(
            nil, host, port, target, 0, nil, nil, connection, connection, nil, nil, 0, nil, "application/ocsp-request",
            body, "application/ocsp-response", 1, maximumResponseBytes, remaining, 0)
        guard let answer else {
            return .failure(.unusable(describeHTTPFailure(OpenSSLError.drainEntries(), timeout: timeout)))
        }
        defer { BIO_free_all(answer) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while bytes.count <= maximumResponseBytes {
            let count = chunk.withUnsafeMutableBytes { BIO_read(answer, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { break }
            bytes += chunk[0..<Int(count)]
        }
        guard bytes.count <= maximumResponseBytes else { return .failure(.unusable("the answer is over 64 KiB")) }
        return .success(bytes)
    }

    /// Connects `connection` (a non-blocking connect BIO) by `deadline`: nil, or why not. As
    /// OpenSSL's `BIO_do_connect_retry` does (a failed attempt is tried again every 100 ms until
    /// the deadline: a name not yet resolved, an address not yet reachable), except that a
    /// refusal (ECONNREFUSED) is an answer: nothing listens there, and it fails at once.
    private static func connect(
        _ connection: OpaquePointer, to peer: (host: String, port: String, name: String), until deadline: time_t,
        timeout: Int
    ) -> Failure? {
        while true {
            if COpenSSL_BIO_do_connect(connection) > 0 { return nil }
            let waiting = COpenSSL_BIO_should_retry(connection) != 0
            let entries = OpenSSLError.drainEntries()
            if entries.contains(where: { $0.library == ERR_LIB_SYS && $0.reason == ECONNREFUSED }) {
                let authority = peer.host.contains(":") ? "[\(peer.host)]" : peer.host
                return .unusable("the connection was refused by \(peer.name)\(authority):\(peer.port)")
            }
            if !waiting {
                let retried: [Int32] = [
                    Int32(ERR_R_SYS_LIB), Int32(BIO_R_CONNECT_ERROR), Int32(BIO_R_NBIO_CONNECT_ERROR),
                ]
                guard entries.contains(where: { $0.library == ERR_LIB_BIO && retried.contains($0.reason) }) else {
                    return .unusable(describeHTTPFailure(entries, timeout: timeout))
                }
                _ = COpenSSL_BIO_reset(connection)
            }
            let waited = BIO_wait(connection, deadline, 100)
            if waited == 0 { return .unusable("no connection within \(timeout) s (the responder is unreachable)") }
            if waited < 0 {
                return .unusable(describeHTTPFailure(OpenSSLError.drainEntries(), timeout: timeout))
            }
        }
    }

    /// OpenSSL's HTTP errors, worded: a timeout is said plainly.
    private static func describeHTTPFailure(_ entries: [OpenSSLError.Entry], timeout: Int) -> String {
        let text = OpenSSLError.describe(entries, or: "OSSL_HTTP_transfer failed")
        if text.contains("connect timeout") {
            return "no connection within \(timeout) s (the responder is unreachable)"
        }
        if text.contains("timeout") || text.contains("timed out") { return "no answer within \(timeout) s" }
        if text.contains("connect") { return "it could not be reached (\(text))" }
        return text
    }
}
