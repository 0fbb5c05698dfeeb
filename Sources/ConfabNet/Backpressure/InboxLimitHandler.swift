import NIOCore

/// Stops reading from the socket while the session's delegate has more of what was delivered
/// to it unconsumed than `SessionInbox.limit` allows, and reads again once it has caught up.
/// TCP then pushes back on a peer that sends faster than the node handles, and what waits
/// for the node stays bounded per session (one socket read may still bring a few more
/// messages), so one session's flood never delays reading on another.
final class InboxLimitHandler: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny

    private let inbox: SessionInbox
    private var context: ChannelHandlerContext?
    private var readPending = false

    init(inbox: SessionInbox) {
        self.inbox = inbox
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        // The hold's closure keeps this handler alive; a closed session needs neither.
        inbox.cancelHold()
    }

    func read(context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        // Resumed from the consumer's thread, so always by a hop: never re-entrantly inside
        // a delegate call that consumed on the event loop.
        if inbox.holdsReading(until: { loop.execute { handler.value.resume() } }) {
            readPending = true
            return
        }
        context.read()
    }

    private func resume() {
        guard readPending, let context else { return }
        readPending = false
        read(context: context)
    }
}
