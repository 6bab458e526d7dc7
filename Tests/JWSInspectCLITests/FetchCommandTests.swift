import AppStoreServerAPI
import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

@testable import JWSInspectCLI

private typealias Seed = MockAppStoreServer.Seed

/// `jwsinspect fetch` against the mock App Store Server API: every kind, pages, the Sandbox
/// fallback, the answer's unsigned fields, and the JWS verified as `inspect` verifies them.
@Suite("fetch: every kind against the mock API", .timeLimit(.minutes(10)))
struct FetchCommandTests {
    @Test("transaction: the answer's section, then the transaction verified against the answering environment")
    func transaction() throws {
        let harness = try FetchHarness()
        let result = harness.run(["transaction", Seed.subscriptionRenewal2])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("API RESPONSE  fetch transaction \(Seed.subscriptionRenewal2) (Production)\n"))
        #expect(result.stdout.contains("  request      GET /inApps/v1/transactions/\(Seed.subscriptionRenewal2)\n"))
        #expect(
            result.stdout.contains(
                "VALID — authentic transaction (trusted root, not a known Apple chain)"))
        #expect(
            result.stdout.contains("fetch transaction \(Seed.subscriptionRenewal2) (Production): signedTransactionInfo")
        )
        #expect(result.stdout.contains("ok    environment       environment is Production"))
        #expect(result.stdout.contains("ok    bundle-id         bundleId is \(harness.key.bundleID)"))
        #expect(result.stderr == "jwsinspect: fetch: answered by Production\n")
        // One request, to Production, with a token the mock accepted.
        let requests = harness.production.requests
        #expect(requests.count == 1 && requests[0].tokenVerdict == .accepted)
        #expect(harness.sandbox.requests.isEmpty)
    }

    @Test("JSON: an apiResponse record with a status and summary comes before the JWS records")
    func jsonRecords() throws {
        let harness = try FetchHarness()
        let result = harness.run(["history", Seed.subscriptionOriginal, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        #expect(records.count == result.stdout.split(separator: "\n").count)
        #expect(records.allSatisfy { $0["status"] is String })
        let first = try #require(records.first)
        #expect(first["type"] as? String == "apiResponse" && first["status"] as? String == "answered")
        #expect(first["source"] as? String == "fetch history \(Seed.subscriptionOriginal) (Production) page 1")
        #expect(first["httpStatus"] as? Int == 200)
        // Every record has the keys every record has, in order; the answer's fields come after.
        let keys = try #require(result.stdout.split(separator: "\n").first).split(separator: ",").compactMap {
            $0.hasPrefix("\"") || $0.hasPrefix("{\"")
                ? String($0.drop { $0 == "{" }.dropFirst().prefix { $0 != "\"" }) : nil
        }
        #expect(Array(keys.prefix(JSONRecord.keys.count)) == JSONRecord.keys, "\(keys)")
        #expect(
            first["summary"] as? String
                == "Production answered: bundleId \(harness.key.bundleID), appAppleId \(TestPayloads.appAppleId), "
                + "hasMore false, signedTransactions 7.")
        #expect((first["reason"] as? String)?.hasPrefix("Production answered GET /inApps/v2/history/") == true)
        #expect(first["checks"] as? [Any] != nil && first["verified"] as? Bool == false)
        let summary = try #require(first["response"] as? [String: Any])
        #expect(summary["environment"] as? String == "Production")
        #expect(summary["bundleId"] as? String == harness.key.bundleID)
        #expect(summary["appAppleId"] as? Int == Int(TestPayloads.appAppleId))
        #expect(summary["hasMore"] as? Bool == false)
        #expect(summary["signedTransactions"] as? Int == 7)
        #expect(
            records.dropFirst().allSatisfy {
                $0["type"] as? String == "transaction" && $0["status"] as? String == "valid"
            })
        #expect(
            records[3]["source"] as? String
                == "fetch history \(Seed.subscriptionOriginal) (Production) page 1: signedTransactions[2]")
    }

    @Test("history: three pages by revision, filters passed through and repeated on every page")
    func historyPages() throws {
        let harness = try FetchHarness()
        harness.production.pageSize = 3
        let result = harness.run([
            "history", Seed.subscriptionOriginal, "--format", "jsonl", "--sort", "DESCENDING", "--product-type",
            "AUTO_RENEWABLE", "--product-type", "CONSUMABLE", "--product-type", "NON_CONSUMABLE", "--product-type",
            "NON_RENEWABLE",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        let pages = records.filter { $0["type"] as? String == "apiResponse" }
        #expect(
            pages.compactMap { $0["source"] as? String }
                == (1...3).map { "fetch history \(Seed.subscriptionOriginal) (Production) page \($0)" })
        #expect(records.count == 3 + 7)
        #expect(
            records.last?["source"] as? String
                == "fetch history \(Seed.subscriptionOriginal) (Production) page 3: signedTransactions[0]")
        let requests = harness.production.answerRequests
        #expect(requests.count == 3)
        for request in requests {
            #expect(request.queryValues("sort") == ["DESCENDING"])
            #expect(
                request.queryValues("productType") == [
                    "AUTO_RENEWABLE", "CONSUMABLE", "NON_CONSUMABLE", "NON_RENEWABLE",
                ])
        }
        #expect(requests[0].queryValues("revision").isEmpty && requests[1].queryValues("revision").count == 1)
    }

    @Test("every history filter Apple supports passes through, as Apple spells it")
    func historyFilters() throws {
        let harness = try FetchHarness()
        let result = harness.run([
            "history", Seed.subscriptionOriginal, "-q", "--product-id", "com.example.pro.monthly", "--product-id",
            "com.example.lifetime", "--start-date", "2025-01-01", "--end-date", "2025-06-01", "--revoked", "false",
            "--subscription-group-id", "21482312", "--ownership-type", "PURCHASED", "--sort", "ASCENDING",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(harness.production.answerRequests.first)
        #expect(request.queryValues("productId") == ["com.example.pro.monthly", "com.example.lifetime"])
        #expect(request.queryValues("startDate") == ["1735689600000"])
        #expect(request.queryValues("endDate") == ["1748736000000"])
        #expect(request.queryValues("revoked") == ["false"])
        #expect(request.queryValues("subscriptionGroupIdentifier") == ["21482312"])
        #expect(request.queryValues("inAppOwnershipType") == ["PURCHASED"])
        #expect(request.queryValues("sort") == ["ASCENDING"])
    }

    @Test("--limit stops after N signed items, asking no further page")
    func limit() throws {
        let harness = try FetchHarness()
        harness.production.pageSize = 3
        let result = harness.run(["history", Seed.subscriptionOriginal, "--format", "jsonl", "--limit", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        #expect(records.filter { $0["type"] as? String == "transaction" }.count == 4)
        #expect(harness.production.answerRequests.count == 2)
        // It says that the answer was cut, and how to get the rest.
        #expect(result.stderr.contains("fetch: stopped at --limit 4 signed items; the answer has more: raise --limit"))
        let all = harness.run(["history", Seed.subscriptionOriginal, "--format", "jsonl", "--limit", "1000"])
        #expect(!all.stderr.contains("--limit"))
    }

    /// `--brief`, for a support desk: per transaction its verdict and summary, nothing else.
    @Test func briefPrintsTheVerdictsAlone() throws {
        let harness = try FetchHarness()
        let result = harness.run(["order", Seed.orderA, "--brief"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 4, "\(result.stdout)")
        #expect(lines[0].hasPrefix("VALID — ") && lines[2].hasPrefix("VALID — "))
        #expect(lines[1].hasPrefix("  ") && lines[3].hasPrefix("  "))
        #expect(!result.stdout.contains("API RESPONSE") && !result.stdout.contains("CHECKS"))
    }

    /// `--summary` counts fetch's results as inspect's: on standard error, one JSON object in JSON modes.
    @Test func summaryCountsTheResults() throws {
        let harness = try FetchHarness()
        let json = harness.run(["history", Seed.subscriptionOriginal, "--format", "jsonl", "--summary"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(
            json.stderr.hasSuffix(
                "{\"schemaVersion\":1,\"record\":\"summary\",\"total\":7,\"statuses\":{\"valid\":7}}\n"),
            "\(json.stderr)")
        let table = harness.run(["history", Seed.subscriptionOriginal, "--summary", "-q"])
        #expect(table.stderr.hasSuffix("summary: 7 results: 7 valid\n"), "\(table.stderr)")
        let missing = harness.run(["order", Seed.unknownOrder, "--summary", "--format", "jsonl"])
        #expect(
            missing.stderr.hasSuffix(
                "{\"schemaVersion\":1,\"record\":\"summary\",\"total\":1,\"statuses\":{\"not-found\":1}}\n"),
            "\(missing.stderr)")
    }

    @Test("an empty history or no refunds is nothing found (8), in every environment asked")
    func emptyAnswers() throws {
        let harness = try FetchHarness()
        let history = harness.run(["history", Seed.subscriptionOriginal, "--product-id", "com.example.none"])
        #expect(history.status == 8)
        #expect(history.stderr.contains("the Production transaction history of \(Seed.subscriptionOriginal) is empty"))
        // Production knows the ID: Sandbox is not asked.
        #expect(harness.sandbox.requests.isEmpty)
        let refunds = harness.run(["refunds", Seed.removeAds, "--environment", "Production", "--format", "jsonl"])
        #expect(refunds.status == 8)
        #expect(FetchHarness.records(refunds.stdout).last?["status"] as? String == "not-found")
    }

    @Test("subscriptions: each subscription's status in the section; both JWS of each verified")
    func subscriptions() throws {
        let harness = try FetchHarness()
        let result = harness.run(["subscriptions", Seed.subscriptionOriginal])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  data         2 subscriptions\n"))
        #expect(result.stdout.contains("status 1 (Active)") && result.stdout.contains("status 2 (Expired)"))
        #expect(result.stdout.contains("data[0].lastTransactions[0].signedRenewalInfo"))
        #expect(result.stdout.contains("(Production): data[1].lastTransactions[0].signedTransactionInfo"))
        // --require-active: the expired magazine subscription grants no access.
        let active = harness.run(["subscriptions", Seed.subscriptionOriginal, "--require-active", "-q"])
        #expect(active.status == 6)
    }

    @Test("order: a known order's transactions; status 1 is nothing found (8), and Sandbox is never asked")
    func order() throws {
        let harness = try FetchHarness()
        let found = harness.run(["order", Seed.orderA])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(
            found.stdout.contains("  status              0 (valid: the order holds in-app purchases of this app)\n"))
        #expect(found.stdout.contains("fetch order \(Seed.orderA) (Production): signedTransactions[1]"))

        let unknown = harness.run(["order", Seed.unknownOrder, "--format", "jsonl"])
        #expect(unknown.status == 8)
        #expect(
            unknown.stderr.contains(
                "not found: order \(Seed.unknownOrder) is not known to Production (order status 1: invalid)"))
        let record = try #require(FetchHarness.records(unknown.stdout).last)
        #expect(record["status"] as? String == "not-found" && record["type"] as? String == "apiResponse")
        #expect(harness.sandbox.requests.isEmpty)
    }

    /// An order ID as pasted from the receipt e-mail: trimmed, unquoted, its label dropped; a
    /// lowercase one Apple does not know gets a hint that order IDs are uppercase.
    @Test func anOrderIDIsTakenAsPasted() throws {
        let harness = try FetchHarness()
        for pasted in [
            " \(Seed.orderA) ", "Order ID: \(Seed.orderA)", "\"\(Seed.orderA)\"", "order id \(Seed.orderA)\n",
        ] {
            let found = harness.run(["order", pasted, "-q"])
            #expect(found.status == 0, "\(pasted): \(found.stderr)")
        }
        let lower = harness.run(["order", Seed.orderA.lowercased(), "--format", "jsonl"])
        #expect(lower.status == 8)
        #expect(lower.stderr.contains("order IDs are uppercase (as in Apple's receipt e-mail): try \(Seed.orderA)"))
        let upper = harness.run(["order", Seed.unknownOrder, "--format", "jsonl"])
        #expect(!upper.stderr.contains("uppercase"))
    }

    @Test("refunds and app-transaction: the refunded transaction; the app transaction")
    func refundsAndAppTransaction() throws {
        let harness = try FetchHarness()
        let refunds = harness.run(["refunds", Seed.subscriptionOriginal, "--format", "jsonl"])
        #expect(refunds.status == 0, "\(refunds.stderr)")
        let transactions = FetchHarness.records(refunds.stdout).filter { $0["type"] as? String == "transaction" }
        #expect(transactions.count == 1)
        #expect((transactions.first?["payload"] as? [String: Any])?["transactionId"] as? String == Seed.lifetime)

        let app = harness.run(["app-transaction", Seed.subscriptionOriginal, "--format", "jsonl"])
        #expect(app.status == 0, "\(app.stderr)")
        #expect(FetchHarness.records(app.stdout).last?["type"] as? String == "appTransaction")
        // A customer without one: 404 with Apple's errorCode is refused (69), named.
        let none = try FetchHarness()
        none.production.enqueue(
            .apiError(status: 404, code: 4_040_019, message: "App transaction does not exist."),
            forPathPrefix: "/inApps/v1/transactions/appTransactions/")
        let missing = none.run(["app-transaction", Seed.removeAds])
        #expect(missing.status == 69)
        #expect(
            missing.stderr.contains(
                "HTTP 404, errorCode 4040019 AppTransactionDoesNotExistError: App transaction does not exist."))
    }

    @Test("notifications: every page by paginationToken, the body sent again; send attempts shown")
    func notifications() throws {
        let harness = try FetchHarness()
        harness.production.pageSize = 2
        let result = harness.run(["notifications", "--since", "2025-01-01", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr) \(result.stdout)")
        let records = FetchHarness.records(result.stdout)
        #expect(records.filter { $0["type"] as? String == "apiResponse" }.count == 3)
        #expect(records.filter { $0["type"] as? String == "notification" }.count == 5)
        let requests = harness.production.requests
        #expect(requests.count == 3 && requests.allSatisfy { $0.method == "POST" })
        #expect(requests[0].bodyText == requests[2].bodyText)
        #expect(requests[0].bodyText.hasPrefix(#"{"startDate":1735689600000,"endDate":"#))
        #expect(requests[1].queryValues("paginationToken").count == 1)
        let failures = harness.run(["notifications", "--since", "2025-01-01", "--only-failures"])
        #expect(failures.status == 0, "\(failures.stderr)")
        #expect(failures.stdout.contains("sendAttemptResult NO_RESPONSE (no response)"))
        #expect(harness.production.requests.last?.bodyText.contains(#""onlyFailures":true"#) == true)
    }

    @Test("test-notification: requested, then polled until Apple reports a send attempt")
    func testNotification() throws {
        let harness = try FetchHarness()
        let result = harness.run(["test-notification", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        let summary = try #require(records.first?["response"] as? [String: Any])
        let attempts = try #require(summary["sendAttempts"] as? [[String: Any]])
        #expect(attempts.first?["sendAttemptResult"] as? String == "SUCCESS")
        #expect(records.last?["type"] as? String == "notification" && records.last?["status"] as? String == "valid")
        #expect(result.stderr.contains("requested; waiting for Apple's send attempt (at most 30 s)\n"))
        let requests = harness.production.requests.map { "\($0.method) \($0.path)" }
        #expect(requests.count == 3 && requests[0] == "POST /inApps/v1/notifications/test")
        #expect(requests[1] == requests[2] && requests[1].hasPrefix("GET /inApps/v1/notifications/test/"))
    }

    @Test("test-notification-status TOKEN: the status of one requested before, its JWS verified; 4040008 not found")
    func testNotificationStatus() throws {
        let harness = try FetchHarness()
        let requested = harness.run(["test-notification", "--format", "jsonl"])
        let response = try #require(FetchHarness.records(requested.stdout).first?["response"] as? [String: Any])
        let token = try #require(response["testNotificationToken"] as? String)
        let before = harness.production.requests.count
        let result = harness.run(["test-notification-status", token, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        #expect(records.first?["record"] as? String == "apiResponse")
        #expect(records.first?["request"] as? String == "GET /inApps/v1/notifications/test/\(token)")
        let attempts = (records.first?["response"] as? [String: Any])?["sendAttempts"] as? [[String: Any]]
        #expect(attempts?.first?["sendAttemptResult"] as? String == "SUCCESS")
        #expect(records.last?["type"] as? String == "notification" && records.last?["status"] as? String == "valid")
        // One GET, no test notification requested: it only reads.
        let asked = harness.production.requests.dropFirst(before).map { "\($0.method) \($0.path)" }
        #expect(asked == ["GET /inApps/v1/notifications/test/\(token)"])

        // A token no environment knows: nothing found in either (4040008), exit 8.
        let unknown = harness.run([
            "test-notification-status", "00000000-0000-4000-8000-000000000000_1698148900000", "--format", "jsonl",
        ])
        #expect(unknown.status == 8, "\(unknown.stderr)")
        #expect(
            unknown.stderr.contains(
                "no Production test notification has the token 00000000-0000-4000-8000-000000000000_1698148900000"))
        #expect(FetchHarness.records(unknown.stdout).last?["status"] as? String == "not-found")
        // A token that is not one: a usage error, nothing sent.
        let bad = harness.run(["test-notification-status", "a/b"])
        #expect(bad.status == 64 && bad.stderr.contains("a test notification token is letters, digits"))
    }

    @Test("extension-status PRODUCT REQUEST-ID: a mass extension's status and counts, unsigned; 4040009 not found")
    func extensionStatus() throws {
        let harness = try FetchHarness()
        let request = "2c5a0f0e-6b7d-4f3e-9a1b-0c2d3e4f5a6b"
        harness.production.addMassExtension(
            product: "pro.monthly", requestIdentifier: request,
            completeDate: Date(timeIntervalSince1970: 1_748_736_000),
            succeeded: 1_204, failed: 3)
        let result = harness.run(["extension-status", "pro.monthly", request, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        #expect(records.count == 1 && records.first?["status"] as? String == "answered")
        #expect(
            records.first?["request"] as? String == "GET /inApps/v1/subscriptions/extend/mass/pro.monthly/\(request)")
        let response = try #require(records.first?["response"] as? [String: Any])
        #expect(response["complete"] as? Bool == true && response["succeededCount"] as? Int == 1_204)
        #expect(response["failedCount"] as? Int == 3 && response["completeDate"] as? Int == 1_748_736_000_000)
        let table = harness.run(["extension-status", "pro.monthly", request])
        #expect(table.stdout.contains("completeDate") && table.stdout.contains("2025-06-01T00:00:00.000Z"))
        // In progress: complete false, no counts yet.
        harness.production.addMassExtension(product: "pro.yearly", requestIdentifier: request, completeDate: nil)
        let pending = harness.run(["extension-status", "pro.yearly", request, "--format", "jsonl"])
        #expect(pending.status == 0)
        let waiting = FetchHarness.records(pending.stdout).first?["response"] as? [String: Any]
        #expect(waiting?["complete"] as? Bool == false && waiting?["succeededCount"] == nil)
        // Unknown in both environments: nothing found (4040009), exit 8.
        let unknown = harness.run(["extension-status", "pro.monthly", "nosuch", "--format", "jsonl"])
        #expect(unknown.status == 8, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no Production renewal date extension request nosuch"))
        // Two arguments, or a usage error.
        let one = harness.run(["extension-status", "pro.monthly"])
        #expect(one.status == 64 && one.stderr.contains("fetch extension-status needs PRODUCT_ID REQUEST_ID"))
    }

    @Test("retention-*: the Retention Messaging API's reads, unsigned; their not-found codes named")
    func retentionMessagingReads() throws {
        let harness = try FetchHarness()
        func record(_ arguments: [String]) throws -> (status: Int32, response: [String: Any]?, stderr: String) {
            let result = harness.run(arguments + ["--format", "jsonl"])
            let records = FetchHarness.records(result.stdout)
            #expect(records.count == 1, "\(arguments): \(result.stdout)")
            return (result.status, records.first?["response"] as? [String: Any], result.stderr)
        }
        // Apple's fixtures: three images and three messages, each with its state.
        let images = try record(["retention-images"])
        let imageList = images.response?["imageIdentifiers"] as? [[String: Any]]
        #expect(images.status == 0 && imageList?.count == 3)
        #expect(imageList?.last?["imageState"] as? String == "REJECTED")
        let messages = try record(["retention-messages"])
        #expect(
            (messages.response?["messageIdentifiers"] as? [[String: Any]])?.first?["messageState"] as? String
                == "APPROVED")
        let table = harness.run(["retention-messages"])
        #expect(
            table.stdout.contains("messageIdentifiers") && table.stdout.contains("3f2b1c0d-0000-4000-8000-000000000002")
        )

        // What is not set is nothing found (exit 8), each code named.
        let noDefault = try record(["retention-default", "pro.monthly", "en-US"])
        #expect(noDefault.status == 8 && noDefault.stderr.contains("4040020 DefaultMessageNotFoundError"))
        let noURL = try record(["retention-realtime-url"])
        #expect(noURL.status == 8 && noURL.stderr.contains("4040021 RealtimeUrlNotFoundError"))
        let noRun = try record(["retention-performance-test", "7c8d9e0f"])
        #expect(noRun.status == 8 && noRun.stderr.contains("4040018 PerformanceTestRunNotFoundError"))

        harness.production.setDefaultMessage(
            product: "pro.monthly", locale: "en-US", messageIdentifier: "3f2b1c0d-0000-4000-8000-000000000001")
        harness.production.setRealtimeURL("https://example.com/retention")
        harness.production.addPerformanceTest(
            requestID: "7c8d9e0f",
            result: MockAppStoreServer.failedPerformanceTest)
        #expect(
            try record(["retention-default", "pro.monthly", "en-US"]).response?["messageIdentifier"] as? String
                == "3f2b1c0d-0000-4000-8000-000000000001")
        #expect(
            try record(["retention-realtime-url"]).response?["realtimeURL"] as? String
                == "https://example.com/retention")
        let run = try record(["retention-performance-test", "7c8d9e0f"])
        #expect(run.status == 0 && run.response?["result"] as? String == "FAIL")
        #expect((run.response?["failures"] as? [[String: Any]])?.first?["TIMED_OUT"] as? Int == 8)
        let words = harness.run(["retention-performance-test", "7c8d9e0f"]).stdout
        #expect(words.contains("successRate") && words.contains("TIMED_OUT 8"), "\(words)")
        // Only reads were sent.
        #expect(harness.production.requests.allSatisfy { $0.method == "GET" })
        #expect(APIErrorCodes.name(4_030_026) == "ForbiddenNoPassingTestError")
    }

    @Test("Production's 4040010 falls back to Sandbox, said on standard error; the JWS must say Sandbox")
    func sandboxFallback() throws {
        let harness = try FetchHarness(productionSeed: false, sandboxSeed: true)
        let result = harness.run(["transaction", Seed.coins])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "fetch: \(Seed.coins) is not a Production transaction (errorCode 4040010 TransactionIdNotFoundError); asking Sandbox\n"
            ))
        #expect(result.stderr.contains("fetch: answered by Sandbox\n"))
        #expect(result.stdout.contains("fetch transaction \(Seed.coins) (Sandbox): signedTransactionInfo"))
        #expect(harness.production.requests.count == 1 && harness.sandbox.requests.count == 1)

        // Unknown in both: nothing found.
        let neither = harness.run(["transaction", Seed.unknownTransaction])
        #expect(neither.status == 8)
        // Asked of Production only: no fallback.
        let productionOnly = harness.run(["transaction", Seed.coins, "--environment", "Production"])
        #expect(productionOnly.status == 8)
    }

    @Test("a JWS from another environment than the one that answered fails as wrong environment (3)")
    func answeringEnvironmentExpected() throws {
        let harness = try FetchHarness(productionSeed: false, sandboxSeed: true)
        // Production's URL leads to the Sandbox mock: its JWS say Sandbox.
        let result = InProcess.run(
            ["fetch", "transaction", Seed.coins, "--environment", "Production"] + harness.credentials + [
                "--production-url", harness.sandbox.baseURL, "--root", harness.rootPath,
            ], stdin: nil)
        #expect(result.status == 3)
        #expect(result.stdout.contains("environment is Sandbox, expected Production"))
    }
}
