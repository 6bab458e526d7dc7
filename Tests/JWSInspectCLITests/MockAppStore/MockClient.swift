import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A bare URLSession client for the mock's own tests: one request, the answer as it came.
enum MockClient {
    /// What a request got back.
    struct Answer {
        var status: Int
        var response: HTTPURLResponse
        var body: Data

        /// A response header (name compared case-insensitively).
        func header(_ name: String) -> String? { response.value(forHTTPHeaderField: name) }
        /// The body as a JSON object, or nil.
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
        var text: String { String(decoding: body, as: UTF8.self) }
        /// `errorCode` of an Apple error body, or nil.
        var errorCode: Int? { (json?["errorCode"] as? NSNumber)?.intValue }
    }

    /// A URL, answer or JWS the helpers cannot use.
    struct Unusable: Error {
        var what: String
    }

    /// Sends one request with an ephemeral session (no cache, no cookies, no connection reuse).
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` field, or nil for none.
    ///   - timeout: URLRequest's `timeoutInterval`, seconds.
    static func send(
        _ url: String, method: String = "GET", authorization: String?, body: Data? = nil,
        contentType: String? = nil, timeout: TimeInterval = 10
    ) async throws -> Answer {
        guard let target = URL(string: url) else { throw Unusable(what: "URL \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.timeoutInterval = timeout
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = body
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw Unusable(what: "a response that is not HTTP") }
        return Answer(status: http.statusCode, response: http, body: data)
    }

    /// `Bearer <token>` for a valid token of `key` issued at `date`.
    /// A bearer token issued at `date`, valid for the 60 minutes Apple allows: a mock's clock
    /// runs on from `InProcess.now` while its suite runs (minutes under a sanitizer), and a
    /// token of 5 minutes issued at the fixed time would be judged expired by then.
    static func bearer(_ key: MockAPIKey, issuedAt date: Date = InProcess.now) -> String {
        "Bearer " + key.token(issuedAt: date, lifetime: 3_600)
    }

    /// The verdict of JWSInspectCore's verifier on a JWS the mock minted: the chain's root
    /// trusted, checked at 2025-06-01, the mock's bundle ID and environment expected.
    static func inspect(_ jws: String, server: MockAppStoreServer) throws -> Inspection {
        var options = VerificationOptions(
            trustStore: TrustStore(roots: [try Certificate(derBytes: server.chain.root.der)]))
        options.now = InProcess.now
        options.expectedBundleId = server.credentials.bundleID
        options.expectedEnvironment = Environment(rawValue: server.environment)
        return Verifier(options: options).inspect(jws, source: "mock")
    }

    /// A JWS's payload as a JSON object (not verified).
    static func payload(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Unusable(what: "a JWS of \(parts.count) segments") }
        let bytes = try Base64URL.decode(Array(parts[1].utf8))
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw Unusable(what: "a JWS payload that is not a JSON object")
        }
        return object
    }

    /// The member `name` of the payload of the JWS `value` (which must be a string), or nil.
    static func payloadMember(_ value: Any?, _ name: String) throws -> Any? {
        guard let jws = value as? String else { throw Unusable(what: "a JWS that is not a string") }
        return try payload(jws)[name]
    }

    /// Whether a `Date` header is the mock's clock during `interval` (IMF-fixdate, whole seconds).
    static func isMockDate(_ header: String?, during interval: ClosedRange<Date>) -> Bool {
        var second = interval.lowerBound.timeIntervalSince1970.rounded(.down)
        while second <= interval.upperBound.timeIntervalSince1970 {
            if header == HTTPRequestParser.imfFixdate(Date(timeIntervalSince1970: second)) { return true }
            second += 1
        }
        return false
    }
}
