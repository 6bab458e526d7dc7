import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The mock's notification endpoints: Get Notification History (body checks, filters,
/// pagination) and the test notification's request and status.
@Suite(.timeLimit(.minutes(10))) struct MockAppStoreServerNotificationTests {
    typealias Seed = MockAppStoreServer.Seed
    static let key = MockAPIKey()

    static func server(_ environment: String = "Production") throws -> MockAppStoreServer {
        try MockAppStoreServer(
            environment: environment, credentials: key.credentials, chain: MockAppStoreServerTests.chain)
    }

    /// 2025-01-01T00:00:00Z and 2025-06-01T00:00:00Z in ms.
    static let january: Int64 = 1_735_689_600_000
    static let june: Int64 = 1_748_736_000_000

    static func history(
        _ server: MockAppStoreServer, _ body: String, token: String? = nil, contentType: String = "application/json"
    ) async throws -> MockClient.Answer {
        let query = token.map { "?paginationToken=\($0)" } ?? ""
        return try await MockClient.send(
            server.baseURL + "/inApps/v1/notifications/history" + query, method: "POST",
            authorization: MockClient.bearer(key), body: Data(body.utf8), contentType: contentType)
    }

    @Test func historyPaginatesAndVerifies() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.pageSize = 2
        let body = #"{"startDate":\#(Self.january),"endDate":\#(Self.june)}"#
        var types: [String] = []
        var token: String?
        var pages: [MockClient.Answer] = []
        repeat {
            let answer = try await Self.history(server, body, token: token)
            #expect(answer.status == 200, "\(answer.text)")
            pages.append(answer)
            let json = try #require(answer.json)
            for item in try #require(json["notificationHistory"] as? [[String: Any]]) {
                let payload = try #require(item["signedPayload"] as? String)
                let inspection = try MockClient.inspect(payload, server: server)
                #expect(inspection.status == .valid, "\(inspection.reason)")
                types.append(try #require(try MockClient.payload(payload)["notificationType"] as? String))
                #expect((item["sendAttempts"] as? [Any])?.isEmpty == false)
            }
            token = json["paginationToken"] as? String
            #expect((json["hasMore"] as? Bool) == (token != nil))
        } while token != nil && pages.count < 10
        #expect(pages.count == 3)
        #expect(types == ["REFUND", "SUBSCRIBED", "DID_RENEW", "DID_RENEW", "ONE_TIME_CHARGE"])
        #expect(Set(server.requests.map(\.bodyText)) == [body])
        #expect(server.requests.map { $0.queryValues("paginationToken").count } == [0, 1, 1])

        let renewal = try #require((pages[1].json?["notificationHistory"] as? [[String: Any]])?.last)
        let attempts = try #require(renewal["sendAttempts"] as? [[String: Any]])
        #expect(attempts.map { $0["sendAttemptResult"] as? String } == ["TIMED_OUT", "SUCCESS"])
        let data = try #require(try MockClient.payloadMember(renewal["signedPayload"], "data") as? [String: Any])
        #expect(data["status"] as? Int == 1 && data["signedRenewalInfo"] is String && data["appAppleId"] != nil)

        // The token belongs to its body.
        let first = try #require(pages[0].json?["paginationToken"] as? String)
        let other = try await Self.history(
            server, #"{"startDate":\#(Self.january),"endDate":\#(Self.june - 1)}"#, token: first)
        #expect(other.status == 400 && other.errorCode == 4_000_014)
    }

    @Test func historyFilters() async throws {
        let server = try Self.server()
        defer { server.stop() }
        func types(_ extra: String) async throws -> [String] {
            let answer = try await Self.history(
                server, #"{"startDate":\#(Self.january),"endDate":\#(Self.june)\#(extra)}"#)
            let items = try #require(answer.json?["notificationHistory"] as? [[String: Any]], "\(answer.text)")
            return try items.map {
                try MockClient.payloadMember($0["signedPayload"], "notificationType") as? String ?? ""
            }
        }
        #expect(try await types(#","transactionId":"\#(Seed.removeAds)""#) == ["ONE_TIME_CHARGE"])
        #expect(
            try await types(#","transactionId":"\#(Seed.coins)""#) == [
                "REFUND", "SUBSCRIBED", "DID_RENEW", "DID_RENEW",
            ])
        #expect(try await types(#","onlyFailures":true"#) == ["ONE_TIME_CHARGE"])
        #expect(try await types(#","notificationType":"DID_RENEW""#) == ["DID_RENEW", "DID_RENEW"])
        #expect(try await types(#","notificationType":"SUBSCRIBED","notificationSubtype":"RESUBSCRIBE""#) == [])
    }

    /// A request body (or Content-Type) Apple refuses, and what the mock answers.
    struct Refused: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var contentType = "application/json"
        var status = 400
        var code: Int?
        var testDescription: String { name }
    }

    static let refused: [Refused] = [
        Refused(name: "no startDate", body: #"{"endDate":\#(june)}"#, code: 4_000_015),
        Refused(name: "startDate a string", body: #"{"startDate":"\#(january)","endDate":\#(june)}"#, code: 4_000_015),
        Refused(name: "no endDate", body: #"{"startDate":\#(january)}"#, code: 4_000_016),
        Refused(name: "start after end", body: #"{"startDate":\#(june),"endDate":\#(january)}"#, code: 4_000_013),
        Refused(
            name: "181 days ago", body: #"{"startDate":\#(june - 181 * 86_400_000),"endDate":\#(june)}"#,
            code: 4_000_012),
        Refused(
            name: "type and transaction",
            body:
                #"{"startDate":\#(january),"endDate":\#(june),"notificationType":"REFUND","transactionId":"\#(Seed.coins)"}"#,
            code: 4_000_019),
        Refused(
            name: "unknown type", body: #"{"startDate":\#(january),"endDate":\#(june),"notificationType":"BOGUS"}"#,
            code: 4_000_018),
        Refused(
            name: "subtype without type",
            body: #"{"startDate":\#(january),"endDate":\#(june),"notificationSubtype":"INITIAL_BUY"}"#, code: 4_000_018),
        Refused(
            name: "unknown transaction",
            body: #"{"startDate":\#(january),"endDate":\#(june),"transactionId":"\#(Seed.unknownTransaction)"}"#,
            status: 404, code: 4_040_010),
        Refused(name: "not JSON", body: "startDate=1", code: 4_000_000),
        Refused(
            name: "text/plain", body: #"{"startDate":\#(january),"endDate":\#(june)}"#, contentType: "text/plain",
            status: 415),
    ]

    @Test(arguments: refused)
    func historyRefuses(_ refused: Refused) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = try await Self.history(server, refused.body, contentType: refused.contentType)
        #expect(answer.status == refused.status, "\(answer.text)")
        #expect(answer.errorCode == refused.code)
    }

    @Test func sandboxLooksBack30Days() async throws {
        let server = try Self.server("Sandbox")
        defer { server.stop() }
        let old = try await Self.history(
            server, #"{"startDate":\#(Self.june - 31 * 86_400_000),"endDate":\#(Self.june)}"#)
        #expect(old.status == 400 && old.errorCode == 4_000_012)
        let recent = try await Self.history(
            server, #"{"startDate":\#(Self.june - 29 * 86_400_000),"endDate":\#(Self.june)}"#)
        #expect(recent.status == 200)
        let items = try #require(recent.json?["notificationHistory"] as? [[String: Any]])
        let data =
            try MockClient.payload(try #require(items.first?["signedPayload"] as? String))["data"] as? [String: Any]
        #expect(data?["environment"] as? String == "Sandbox" && data?["appAppleId"] == nil)
    }

    @Test func testNotificationIsPendingThenThere() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.testNotificationPendingPolls = 2
        let requested = try await MockClient.send(
            server.baseURL + "/inApps/v1/notifications/test", method: "POST", authorization: MockClient.bearer(Self.key)
        )
        #expect(requested.status == 200)
        let token = try #require(requested.json?["testNotificationToken"] as? String)
        let status = server.baseURL + "/inApps/v1/notifications/test/" + token
        for _ in 0..<2 {
            let pending = try await MockClient.send(status, authorization: MockClient.bearer(Self.key))
            #expect(pending.status == 404 && pending.errorCode == 4_040_008)
            #expect(pending.json?["errorMessage"] as? String == "Test notification not found.")
        }
        let done = try await MockClient.send(status, authorization: MockClient.bearer(Self.key))
        #expect(done.status == 200)
        let payload = try #require(done.json?["signedPayload"] as? String)
        #expect(try MockClient.inspect(payload, server: server).status == .valid)
        #expect(try MockClient.payload(payload)["notificationType"] as? String == "TEST")
        let attempts = try #require(done.json?["sendAttempts"] as? [[String: Any]])
        #expect(attempts.count == 1 && attempts.first?["sendAttemptResult"] as? String == "SUCCESS")

        let unknown = try await MockClient.send(
            server.baseURL + "/inApps/v1/notifications/test/\(UUID().uuidString.lowercased())_1748736000000",
            authorization: MockClient.bearer(Self.key))
        #expect(unknown.status == 404 && unknown.errorCode == 4_040_008)
        let malformed = try await MockClient.send(
            server.baseURL + "/inApps/v1/notifications/test/not-a-token", authorization: MockClient.bearer(Self.key))
        #expect(malformed.status == 400 && malformed.errorCode == 4_000_020)
    }
}
