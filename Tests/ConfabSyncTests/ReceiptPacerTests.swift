import ConfabModel
import ConfabSync
import Testing

@Suite struct ReceiptPacerTests {
    let start = ContinuousClock.now
    let a = ConversationID.random()
    let b = ConversationID.random()

    @Test func theFirstReceiptGoesAtOnceAndABurstMakesOneMore() {
        var pacer = ReceiptPacer()
        #expect(pacer.due([a], now: start) == [a])
        // A hundred messages in the next second: nothing now, one receipt when it is time.
        for i in 1...100 { #expect(pacer.due([a], now: start + .milliseconds(10 * i)).isEmpty) }
        #expect(pacer.isWaiting)
        #expect(pacer.due([], now: start + .milliseconds(1900)).isEmpty)
        #expect(pacer.due([], now: start + .seconds(2)) == [a])
        #expect(!pacer.isWaiting)
    }

    @Test func conversationsArePacedApart() {
        var pacer = ReceiptPacer()
        #expect(pacer.due([a], now: start) == [a])
        #expect(pacer.due([a, b], now: start + .milliseconds(100)) == [b])
        #expect(pacer.due([], now: start + .seconds(2)) == [a])
    }
}
