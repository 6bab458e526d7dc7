import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The mock's scripted failures, clock and HTTP handling: what a client's retry, timeout and
/// error paths will meet. Also records how URLSession (libcurl) on Linux reports each.
@Suite(.timeLimit(.minutes(10))) struct MockAppStoreServerTransportTests {
    typealias Seed = MockAppStoreServer.Seed
    static let key = MockAPIKey()

    static func server() throws -> MockAppStoreServer {
        try MockAppStoreServer(credentials: key.credentials, chain: MockAppStoreServerTests.chain)
    }

    static func transaction(_ server: MockAppStoreServer, timeout: TimeInterval = 10) async throws -> MockClient.Answer
    {
        try await MockClient.send(
            server.baseURL + "/inApps/v1/transactions/\(Seed.coins)", authorization: MockClient.bearer(key),
            timeout: timeout)
    }

    /// The URLError a request threw, or nil when it did not throw one.
    static func urlError(_ body: () async throws -> MockClient.Answer) async -> URLError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? URLError
        }
    }

    @Test func scriptedRateLimitComesAfterTheTokenCheck() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let retryAfter = server.retryAfterMilliseconds(fromNow: .seconds(2))
        server.enqueue(.rateLimited(retryAfter: retryAfter), forPathPrefix: "/inApps/v1/transactions/")
        let refused = try await MockClient.send(
            server.baseURL + "/inApps/v1/transactions/\(Seed.coins)", authorization: nil)
        #expect(refused.status == 401)
        #expect(server.pendingScriptedReplies == 1)

        let limited = try await Self.transaction(server)
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == retryAfter)
        #expect(limited.json?["errorCode"] as? Int == 4_290_000)
        #expect(limited.json?["errorMessage"] as? String == "Rate limit exceeded.")
        let milliseconds = try #require(Int64(retryAfter))
        #expect(abs(milliseconds - (1_748_736_000_000 + 2000)) < 1000)
        #expect(server.requests.last?.scripted == true)

        let normal = try await Self.transaction(server)
        #expect(normal.status == 200)
        #expect(server.pendingScriptedReplies == 0)
    }

    @Test func scriptedStatusesInOrder() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.enqueue(.internalError, forPathPrefix: "/inApps/", times: 2)
        server.enqueue(.malformedJSON, forPathPrefix: "/inApps/v1/transactions/")
        server.enqueue(.status(503, body: "down"), forPathPrefix: "/inApps/", phase: .beforeTokenCheck)
        let unavailable = try await MockClient.send(
            server.baseURL + "/inApps/v1/transactions/\(Seed.coins)", authorization: nil)
        #expect(unavailable.status == 503 && unavailable.text == "down")
        #expect(server.requests.last?.tokenVerdict == nil)
        for _ in 0..<2 {
            let failed = try await Self.transaction(server)
            #expect(failed.status == 500 && failed.errorCode == 5_000_000)
        }
        let malformed = try await Self.transaction(server)
        #expect(malformed.status == 200 && malformed.json == nil)
        #expect(try await Self.transaction(server).status == 200)
    }

    /// No time bounds on the client: with the whole suite running on two cores, URLSession's 1 s
    /// timeout has been seen to fire after 13 s. The error codes tell what happened.
    @Test func hangTimesOutTheClient() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.enqueue(.hang, forPathPrefix: "/inApps/")
        let error = await Self.urlError { try await Self.transaction(server, timeout: 1) }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(server.requests.last?.status == nil)
    }

    @Test func stopEndsAHangingConnection() async throws {
        let server = try Self.server()
        server.enqueue(.hang, forPathPrefix: "/inApps/")
        let client = Task { await Self.urlError { try await Self.transaction(server, timeout: 120) } }
        let arrival = ContinuousClock.now + .seconds(60)
        while server.requests.isEmpty, ContinuousClock.now < arrival { try await Task.sleep(for: .milliseconds(10)) }
        let start = ContinuousClock.now
        server.stop()
        // stop() gives up waiting for its threads after 10 s.
        #expect(ContinuousClock.now - start < .seconds(9))
        // Closed without an answer (an empty reply), not timed out: stop() ended it. (libcurl
        // may try a dead connection once more: then the stopped server refuses it.)
        let error = await client.value
        #expect(
            error?.code == .badServerResponse || error?.code == .cannotConnectToHost, "\(String(describing: error))")
    }

    /// URLSession (libcurl) reports an empty reply as -1011 `badServerResponse` ("Empty reply from
    /// server") and a reset as -1005 `networkConnectionLost`.
    @Test func dropAndResetFailTheRequest() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.enqueue(.drop, forPathPrefix: "/inApps/")
        server.enqueue(.reset, forPathPrefix: "/inApps/")
        let dropped = await Self.urlError { try await Self.transaction(server) }
        #expect(dropped?.code == .badServerResponse, "\(String(describing: dropped))")
        let reset = await Self.urlError { try await Self.transaction(server) }
        #expect(reset?.code == .networkConnectionLost, "\(String(describing: reset))")
        #expect(server.requests.map(\.status) == [nil, nil])
    }

    @Test func nothingListensOnTheUnusedPort() async throws {
        let port = try MockHTTPServer.unusedPort()
        let error = await Self.urlError {
            try await MockClient.send("http://127.0.0.1:\(port)/inApps/v1/transactions/1", authorization: nil)
        }
        #expect(error?.code == .cannotConnectToHost, "\(String(describing: error))")
    }

    @Test func clockOffsetJudgesTokensAndDatesAnswers() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.clockOffset = .seconds(-600)
        let early = try await Self.transaction(server)
        #expect(early.status == 401)
        #expect(server.requests.last?.tokenVerdict?.refusal == .issuedInFuture)
        // 2025-05-31T23:50:00Z and later.
        #expect(
            MockClient.isMockDate(early.header("Date"), during: InProcess.now.addingTimeInterval(-600)...server.now))
        server.clockOffset = .seconds(3600)
        #expect(try await Self.transaction(server).status == 401)
        #expect(server.requests.last?.tokenVerdict?.refusal == .expired)
        server.clockOffset = .seconds(30)
        #expect(try await Self.transaction(server).status == 200)
    }

    @Test func droppingTheLastReferenceStopsTheServer() async throws {
        var port: UInt16 = 0
        do {
            let server = try Self.server()
            port = server.port
            #expect(try await Self.transaction(server).status == 200)
        }
        let error = await Self.urlError {
            try await MockClient.send("http://127.0.0.1:\(port)/", authorization: nil)
        }
        #expect(error?.code == .cannotConnectToHost, "\(String(describing: error))")
    }

    @Test func largePostBodyArrives() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let padding = String(repeating: " ", count: 64 * 1024)
        let body = #"{"startDate":1735689600000,"endDate":1748736000000}"# + padding
        let answer = try await MockClient.send(
            server.baseURL + "/inApps/v1/notifications/history", method: "POST",
            authorization: MockClient.bearer(Self.key),
            body: Data(body.utf8), contentType: "application/json")
        #expect(answer.status == 200)
        let recorded = try #require(server.requests.last)
        #expect(recorded.body.count == body.utf8.count)
        // URLSession on Linux (libcurl 7.88) sent no Expect: 100-continue, even for 64 KiB.
    }
}
