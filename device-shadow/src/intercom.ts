import { CALL_MAX_SECONDS, callUp, deviceTopics, type CallUp, type OpenDoorRequest } from '@passcloud/functions/contract/protocol';
import type { IntercomKind } from '@passcloud/functions/contract/devices';
import type { DeviceAgent } from './agent.ts';
import { newCallId, recordingTypeOf } from './calls.ts';
import { speechWav } from './speech.ts';

/**
 * The calling side of an intercom (a door station or an indoor monitor) on top of its agent. The
 * calls themselves run between the intercoms (SIP or the vendor's own signalling); the cloud only
 * hears of them. Each end reports its own view under the call's id: live as soon as it rings
 * (`ring`: not connected yet, status 3), live again once answered (`answer`: status 1 or 2), and
 * once it is over (`end`, or `miss` when nobody answered), with the talk time and, from the end
 * that recorded it, the recording. An answering monitor may ask for the door station's door
 * (`openDoor`); the station notes when its door opened during the call and reports it with the
 * call's end.
 */

const intercoms = new WeakMap<DeviceAgent, Intercom>();
/** How many calls an intercom remembers after they ended. */
const REMEMBERED = 50;

export interface EndOptions {
  /** When the call ended (ms); now unless told. */
  at?: number;
  /** A recording of the talk to announce and upload: the bytes, or true for a WAV of the talk time (speech.ts). */
  recording?: Buffer | boolean;
}

export class Intercom {
  private readonly calls = new Map<string, CallUp>();

  constructor(readonly agent: DeviceAgent) {
    if (!agent.isIntercom) throw new Error('not an intercom: give the agent the kind doorStation or indoorMonitor');
    agent.on((event) => {
      if (event.type === 'doorOpened' && event.callId) this.doorOpened(event.callId, event.at);
    });
  }

  /** The one Intercom of an agent. */
  static of(agent: DeviceAgent): Intercom {
    let intercom = intercoms.get(agent);
    if (!intercom) {
      intercom = new Intercom(agent);
      intercoms.set(agent, intercom);
    }
    return intercom;
  }

  get kind(): IntercomKind {
    return this.agent.kind as IntercomKind;
  }

  /** The calls ringing or talking now. */
  get live(): CallUp[] {
    return [...this.calls.values()].filter((c) => c.endTime === undefined);
  }

  /** In a call now (ringing or talking). */
  get busy(): boolean {
    return this.live.length > 0;
  }

  /** A call as this intercom saw it last: live or ended (the last few). */
  find(callId: string): CallUp | undefined {
    return this.calls.get(callId);
  }

  /**
   * A call rings: dialled from here to `peerNumber` (outgoing, the default) or from `peerNumber`
   * to here (incoming, under the caller's `callId`). Reported at once as a live call, not
   * connected yet. Returns the call as reported.
   */
  ring(peerNumber: string, options: { callId?: string; direction?: CallUp['direction']; at?: number } = {}): CallUp {
    const callId = options.callId ?? newCallId();
    if (this.calls.has(callId)) throw new Error(`call ${callId} was reported here already`);
    const call: CallUp = { callId, direction: options.direction ?? 'outgoing', status: 3, peer: { number: peerNumber }, startTime: options.at ?? Date.now() };
    this.report(call);
    this.agent.write('info', 'callStarted', { number: peerNumber });
    return call;
  }

  /** The call is answered (at this end or the other): it is talking now, and reported so (still live). */
  answer(callId: string, at = Date.now()): CallUp {
    const call = this.liveCall(callId);
    if (call.answerTime !== undefined) return call;
    const answered: CallUp = { ...call, status: call.direction === 'incoming' ? 1 : 2, answerTime: Math.max(at, call.startTime) };
    this.report(answered);
    return answered;
  }

  /**
   * The call is over. An answered call reports its talk time (and the recording, if any); one
   * never answered ends not connected, as `miss`.
   */
  end(callId: string, options: EndOptions = {}): CallUp {
    const call = this.liveCall(callId);
    const endTime = Math.max(options.at ?? Date.now(), call.answerTime ?? call.startTime);
    if (call.answerTime === undefined) return this.finish({ ...call, endTime });
    const duration = Math.min(CALL_MAX_SECONDS, Math.round((endTime - call.answerTime) / 1000));
    const recording = options.recording === true ? (duration >= 1 ? speechWav(duration, { seed: callId }) : undefined) : options.recording || undefined;
    const announced = recording ? { recording: { contentType: recordingTypeOf(recording), size: recording.length } } : {};
    const ended = this.finish({ ...call, endTime, duration, ...announced }, recording);
    this.agent.write('info', 'callEnded', { number: call.peer.number, count: duration });
    return ended;
  }

  /** Nobody answered (or the call was refused): it ends not connected. */
  miss(callId: string, at?: number): CallUp {
    const call = this.liveCall(callId);
    if (call.answerTime !== undefined) throw new Error(`call ${callId} was answered; end it instead`);
    return this.finish({ ...call, endTime: Math.max(at ?? Date.now(), call.startTime) });
  }

  /**
   * An indoor monitor talking to a door station asks for its door. The request goes once the
   * cloud has the call as answered (that view acknowledged, or after 10 s at most); the cloud
   * sends the station an `openDoor` command with the call's id.
   */
  async openDoor(callId: string): Promise<void> {
    if (this.kind !== 'indoorMonitor') throw new Error('only an indoor monitor asks for a door');
    const call = this.liveCall(callId);
    if (call.answerTime === undefined) throw new Error(`call ${callId} has not been answered`);
    await this.agent.calls.delivered(callId, 10_000);
    const binding = this.agent.binding;
    if (!binding) throw new Error('not bound');
    this.agent.publish(deviceTopics(binding.thingName).callOpenDoor, { callId } satisfies OpenDoorRequest);
  }

  /** A door station opened its door during a call (an `openDoor` command with the call's id): the call's end reports when. */
  private doorOpened(callId: string, at: number): void {
    const call = this.calls.get(callId);
    if (!call || call.endTime !== undefined || (call.doorOpenedAt !== undefined && call.doorOpenedAt <= at)) return;
    this.calls.set(callId, { ...call, doorOpenedAt: Math.max(at, call.startTime) });
  }

  private liveCall(callId: string): CallUp {
    const call = this.calls.get(callId);
    if (!call) throw new Error(`no call ${callId} here`);
    if (call.endTime !== undefined) throw new Error(`call ${callId} has ended`);
    return call;
  }

  private finish(call: CallUp, recording?: Buffer): CallUp {
    this.report(call, recording);
    if (call.status === 3) this.agent.write('info', 'callMissed', { number: call.peer.number });
    const ended = [...this.calls.values()].filter((c) => c.endTime !== undefined);
    for (const old of ended.slice(0, Math.max(0, ended.length - REMEMBERED))) this.calls.delete(old.callId);
    return call;
  }

  /** Keeps the call as this end sees it and hands it to the outbox; a view the cloud would refuse is a mistake here. */
  private report(call: CallUp, recording?: Buffer): void {
    const checked = callUp.safeParse(call);
    if (!checked.success) {
      const issues = checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      throw new Error(`call ${call.callId} is not valid: ${issues.join('; ')}`);
    }
    this.calls.set(call.callId, call);
    this.agent.calls.report(call, recording);
  }
}
