import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The mock App Store Server API itself, through URLSession: tokens checked as Apple does,
/// Apple-shaped bodies whose JWS verify, pagination, errors.
@Suite(.timeLimit(.minutes(10))) struct MockAppStoreServerTests {
    static let chain = AppleShapedChain()
    static let key = MockAPIKey()
    typealias Seed = MockAppStoreServer.Seed

    static func server(_ environment: String = "Production") throws -> MockAppStoreServer {
        try MockAppStoreServer(environment: environment, credentials: key.credentials, chain: chain)
    }

    static func get(_ server: MockAppStoreServer, _ path: String) async throws -> MockClient.Answer {
        try await MockClient.send(server.baseURL + path, authorization: MockClient.bearer(key))
    }

    @Test func transactionInfoIsAppleShapedAndVerifies() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = try await Self.get(server, "/inApps/v1/transactions/\(Seed.subscriptionRenewal2)")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/json")
        #expect(answer.header("Connection")?.lowercased() == "close")
        #expect(MockClient.isMockDate(answer.header("Date"), during: InProcess.now...server.now))
        let json = try #require(answer.json)
        #expect(Array(json.keys) == ["signedTransactionInfo"])
        let jws = try #require(json["signedTransactionInfo"] as? String)
        let inspection = try MockClient.inspect(jws, server: server)
        #expect(inspection.status == .valid, "\(inspection.reason)")
        let payload = try MockClient.payload(jws)
        #expect(payload["transactionId"] as? String == Seed.subscriptionRenewal2)
        #expect(payload["originalTransactionId"] as? String == Seed.subscriptionOriginal)
        #expect(payload["environment"] as? String == "Production")
        #expect(payload["bundleId"] as? String == Self.key.bundleID)
        #expect(payload["type"] as? String == "Auto-Renewable Subscription")
        let recorded = try #require(server.requests.last)
        #expect(recorded.tokenVerdict == .accepted)
        #expect(recorded.status == 200)
        #expect(recorded.header("authorization")?.hasPrefix("Bearer ") == true)
    }

    /// One defect per token, and the reason the mock records for it.
    enum Defect: String, CaseIterable, Sendable {
        case noAuthorization, basicScheme, twoSegments, algorithmHS256, wrongKeyID, noType, signedByOtherKey
        case wrongIssuer, wrongAudience, bundleIDCase, noExpiry, expired, issuedInFuture
        case expires61MinutesAfterIat, expires61MinutesAheadWithoutIat

        var refusal: TokenRefusal {
            switch self {
            case .noAuthorization: .missingAuthorization
            case .basicScheme: .notBearer
            case .twoSegments: .malformed
            case .algorithmHS256: .wrongAlgorithm
            case .wrongKeyID: .wrongKeyID
            case .noType: .wrongType
            case .signedByOtherKey: .badSignature
            case .wrongIssuer: .wrongIssuer
            case .wrongAudience: .wrongAudience
            case .bundleIDCase: .wrongBundleID
            case .noExpiry: .missingExpiry
            case .expired: .expired
            case .issuedInFuture: .issuedInFuture
            case .expires61MinutesAfterIat: .lifetimeTooLong
            case .expires61MinutesAheadWithoutIat: .expiresTooFarAhead
            }
        }

        /// The `Authorization` field carrying the defect (nil: none sent).
        func authorization(_ key: MockAPIKey) -> String? {
            let now = InProcess.now
            let valid = key.token(issuedAt: now, lifetime: 3_600)
            func replacing(_ name: String, _ value: DeveloperToken.Value?) -> String {
                var claims = key.claims(issuedAt: now).filter { $0.0 != name }
                if let value { claims.append((name, value)) }
                return "Bearer " + key.token(claims: claims)
            }
            let iat = Int64(now.timeIntervalSince1970)
            switch self {
            case .noAuthorization: return nil
            case .basicScheme: return "Basic " + Data("user:password".utf8).base64EncodedString()
            case .twoSegments: return "Bearer " + valid.split(separator: ".").prefix(2).joined(separator: ".")
            case .algorithmHS256:
                return "Bearer "
                    + key.token(
                        headerJSON: #"{"alg":"HS256","kid":"\#(key.keyID)","typ":"JWT"}"#,
                        claimsJSON: String(decoding: DeveloperToken.json(key.claims(issuedAt: now)), as: UTF8.self))
            case .wrongKeyID: return "Bearer " + key.token(claims: key.claims(issuedAt: now), keyID: "ZZZZZZZZZZ")
            case .noType:
                return "Bearer "
                    + key.token(
                        headerJSON: #"{"alg":"ES256","kid":"\#(key.keyID)"}"#,
                        claimsJSON: String(decoding: DeveloperToken.json(key.claims(issuedAt: now)), as: UTF8.self))
            case .signedByOtherKey:
                let other = MockAPIKey(keyID: key.keyID, issuerID: key.issuerID, bundleID: key.bundleID)
                return "Bearer " + other.token(issuedAt: now)
            case .wrongIssuer: return replacing("iss", .string("00000000-0000-0000-0000-000000000000"))
            case .wrongAudience: return replacing("aud", .string("appstoreconnect-v2"))
            case .bundleIDCase: return replacing("bid", .string(key.bundleID.uppercased()))
            case .noExpiry: return replacing("exp", nil)
            case .expired: return "Bearer " + key.token(issuedAt: now.addingTimeInterval(-600), lifetime: 300)
            case .issuedInFuture: return "Bearer " + key.token(issuedAt: now.addingTimeInterval(600), lifetime: 300)
            case .expires61MinutesAfterIat: return "Bearer " + key.token(issuedAt: now, lifetime: 3660)
            case .expires61MinutesAheadWithoutIat:
                return "Bearer "
                    + key.token(
                        claims: key.claims(issuedAt: now).filter { $0.0 != "iat" && $0.0 != "exp" } + [
                            ("exp", .integer(iat + 3660))
                        ])
            }
        }
    }

    @Test(arguments: Defect.allCases)
    func defectiveTokenGets401(_ defect: Defect) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = try await MockClient.send(
            server.baseURL + "/inApps/v1/transactions/\(Seed.coins)", authorization: defect.authorization(Self.key))
        #expect(answer.status == 401)
        #expect(answer.json == nil)
        #expect(answer.text.hasPrefix("Unauthenticated\n\nRequest ID: "))
        let verdict = try #require(server.requests.last?.tokenVerdict)
        #expect(verdict.refusal == defect.refusal, "\(verdict)")
    }

    @Test func historyPaginatesWithTheFiltersOnEveryPage() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.pageSize = 3
        let filters =
            "productType=AUTO_RENEWABLE&productType=CONSUMABLE&productType=NON_CONSUMABLE"
            + "&productType=NON_RENEWABLE&sort=ASCENDING"
        var ids: [String] = []
        var revision: String?
        var pages = 0
        repeat {
            let query = filters + (revision.map { "&revision=\($0)" } ?? "")
            let answer = try await Self.get(server, "/inApps/v2/history/\(Seed.coins)?\(query)")
            #expect(answer.status == 200)
            let json = try #require(answer.json)
            #expect(json["bundleId"] as? String == Self.key.bundleID)
            #expect(json["environment"] as? String == "Production")
            #expect((json["appAppleId"] as? NSNumber)?.int64Value == TestPayloads.appAppleId)
            let transactions = try #require(json["signedTransactions"] as? [String])
            for jws in transactions {
                #expect(try MockClient.inspect(jws, server: server).status == .valid)
                ids.append(try #require(try MockClient.payload(jws)["transactionId"] as? String))
            }
            revision = try #require(json["revision"] as? String)
            pages += 1
            guard json["hasMore"] as? Bool == true else { break }
        } while pages < 10
        #expect(pages == 3)
        #expect(
            ids == [
                Seed.magazine, Seed.lifetime, Seed.coins, Seed.subscriptionOriginal, Seed.seasonPass,
                Seed.subscriptionRenewal1, Seed.subscriptionRenewal2,
            ])
        for request in server.requests {
            #expect(
                request.queryValues("productType") == [
                    "AUTO_RENEWABLE", "CONSUMABLE", "NON_CONSUMABLE", "NON_RENEWABLE",
                ])
            #expect(request.queryValues("sort") == ["ASCENDING"])
        }
        #expect(server.requests.map { $0.queryValues("revision").count } == [0, 1, 1])

        // A revision is tied to its filters, and the mock knows only its own.
        let changed = try await Self.get(server, "/inApps/v2/history/\(Seed.coins)?revision=\(try #require(revision))")
        #expect(changed.status == 400 && changed.errorCode == 4_000_005)
        let unknown = try await Self.get(server, "/inApps/v2/history/\(Seed.coins)?\(filters)&revision=abc")
        #expect(unknown.status == 400 && unknown.errorCode == 4_000_005)
        #expect(unknown.json?["errorMessage"] as? String == "Invalid request revision.")
    }

    @Test func historyFilters() async throws {
        let server = try Self.server()
        defer { server.stop() }
        func ids(_ query: String) async throws -> [String] {
            let answer = try await Self.get(server, "/inApps/v2/history/\(Seed.appTransactionA)?\(query)")
            let transactions = try #require(answer.json?["signedTransactions"] as? [String], "\(answer.text)")
            return try transactions.map { try #require(try MockClient.payload($0)["transactionId"] as? String) }
        }
        #expect(
            try await ids("productId=com.example.pro.monthly&sort=DESCENDING") == [
                Seed.subscriptionRenewal2, Seed.subscriptionRenewal1, Seed.subscriptionOriginal,
            ])
        #expect(try await ids("revoked=true") == [Seed.lifetime])
        // purchaseDate >= startDate and < endDate (2025-03-15 and 2025-04-15 at 00:00Z).
        #expect(
            try await ids("startDate=1741996800000&endDate=1744675200000") == [
                Seed.subscriptionOriginal, Seed.seasonPass,
            ])
        #expect(try await ids("subscriptionGroupIdentifier=21500000") == [Seed.magazine])
        let bad = try await Self.get(server, "/inApps/v2/history/\(Seed.coins)?productType=SUBSCRIPTION")
        #expect(bad.status == 400 && bad.errorCode == 4_000_022)
        let revoked = try await Self.get(server, "/inApps/v2/history/\(Seed.coins)?revoked=False")
        #expect(revoked.status == 400 && revoked.errorCode == 4_000_030)
    }

    @Test func unknownAndMalformedIDs() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let unknown = try await Self.get(server, "/inApps/v1/transactions/\(Seed.unknownTransaction)")
        #expect(unknown.status == 404)
        #expect(unknown.header("Content-Type") == "application/json")
        #expect(unknown.json?["errorCode"] as? Int == 4_040_010)
        #expect(unknown.json?["errorMessage"] as? String == "Transaction id not found.")
        let malformed = try await Self.get(server, "/inApps/v1/transactions/12ab")
        #expect(malformed.status == 400 && malformed.errorCode == 4_000_006)
        let app = try await Self.get(server, "/inApps/v1/transactions/\(Seed.appTransactionA)")
        #expect(app.status == 400 && app.errorCode == 4_000_048)
        let path = try await Self.get(server, "/inApps/v1/nothing/here")
        #expect(path.status == 404 && path.json == nil)
        #expect(server.requests.last?.tokenVerdict == nil)
    }

    @Test func orderLookup() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let unknown = try await Self.get(server, "/inApps/v1/lookup/\(Seed.unknownOrder)")
        #expect(unknown.status == 200)
        #expect(unknown.text == #"{"status":1}"#)
        let known = try await Self.get(server, "/inApps/v1/lookup/\(Seed.orderA)")
        #expect(known.json?["status"] as? Int == 0)
        let transactions = try #require(known.json?["signedTransactions"] as? [String])
        #expect(
            try transactions.map { try MockClient.payload($0)["transactionId"] as? String } == [
                Seed.subscriptionOriginal, Seed.coins,
            ])

        let sandbox = try Self.server("Sandbox")
        defer { sandbox.stop() }
        let none = try await Self.get(sandbox, "/inApps/v1/lookup/\(Seed.orderA)")
        #expect(none.status == 404 && none.errorCode == 4_040_000)
    }

    @Test func subscriptionStatusesRefundsAndAppTransaction() async throws {
        let server = try Self.server("Sandbox")
        defer { server.stop() }
        let statuses = try #require(try await Self.get(server, "/inApps/v1/subscriptions/\(Seed.coins)").json)
        #expect(statuses["environment"] as? String == "Sandbox")
        #expect(statuses["appAppleId"] == nil)
        let groups = try #require(statuses["data"] as? [[String: Any]])
        #expect(groups.map { $0["subscriptionGroupIdentifier"] as? String } == ["21482312", "21500000"])
        let last = try #require((groups.first?["lastTransactions"] as? [[String: Any]])?.first)
        #expect(last["status"] as? Int == 1)
        #expect(last["originalTransactionId"] as? String == Seed.subscriptionOriginal)
        for field in ["signedTransactionInfo", "signedRenewalInfo"] {
            let jws = try #require(last[field] as? String)
            #expect(try MockClient.inspect(jws, server: server).status == .valid, "\(field)")
        }
        let active = try await Self.get(server, "/inApps/v1/subscriptions/\(Seed.coins)?status=1&status=3")
        #expect((active.json?["data"] as? [Any])?.count == 1)

        let refunds = try #require(try await Self.get(server, "/inApps/v2/refund/lookup/\(Seed.coins)").json)
        #expect(refunds["hasMore"] as? Bool == false && refunds["revision"] is String)
        let refunded = try #require((refunds["signedTransactions"] as? [String])?.first)
        #expect(try MockClient.payload(refunded)["revocationDate"] != nil)

        let app = try await Self.get(server, "/inApps/v1/transactions/appTransactions/\(Seed.coins)")
        let jws = try #require(app.json?["signedAppTransactionInfo"] as? String)
        #expect(try MockClient.inspect(jws, server: server).status == .valid)
        #expect(try MockClient.payload(jws)["appTransactionId"] as? String == Seed.appTransactionA)
    }
}
