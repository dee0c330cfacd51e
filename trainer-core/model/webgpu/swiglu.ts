/**
 * The SwiGLU gate silu(gate) * up in one dispatch (tfjs: sigmoid, two products), and its
 * gradient in two (one per input):
 *   d gate = dy up s (1 + gate (1 - s)),  d up = dy gate s,  s = sigmoid(gate)
 */
import * as tf from '@tensorflow/tfjs';
import { elementwiseProgram, registerProgramKernel, runKernel } from './program';

const FORWARD = 'TurnLabSwiglu';
const GRAD_GATE = 'TurnLabSwigluGradGate';
const GRAD_UP = 'TurnLabSwigluGradUp';

const SIGMOID = 'let s = 1.0 / (1.0 + exp(-1.0 * g));';

export function registerSwigluKernels(): void {
  registerProgramKernel(FORWARD, ({ gate, up }) => ({
    program: elementwiseProgram('swiglu', ['Gate', 'Up'], [...gate.shape], `let g = Gate[index]; ${SIGMOID} setOutputAtIndex(index, g * s * Up[index]);`),
    inputs: [gate, up],
  }));
  // An input a shader never reads is dropped from its bind group layout (and binding it fails),
  // so the gradient for `up` does not list `up`.
  registerProgramKernel(GRAD_GATE, ({ gate, up, dy }) => ({
    program: elementwiseProgram('swiglu_grad_gate', ['Gate', 'Up', 'Dy'], [...gate.shape], `let g = Gate[index]; ${SIGMOID} setOutputAtIndex(index, Dy[index] * Up[index] * s * (1.0 + g * (1.0 - s)));`),
    inputs: [gate, up, dy],
  }));
  registerProgramKernel(GRAD_UP, ({ gate, dy }) => ({
    program: elementwiseProgram('swiglu_grad_up', ['Gate', 'Dy'], [...gate.shape], `let g = Gate[index]; ${SIGMOID} setOutputAtIndex(index, Dy[index] * g * s);`),
    inputs: [gate, dy],
  }));
}

export function fusedSwiglu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  const op = tf.customGrad((...args) => {
    const [g, u, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([g, u]);
    return {
      value: runKernel(FORWARD, { gate: g, up: u }),
      gradFunc: (dy: tf.Tensor, [sg, su]: tf.Tensor[]) => [runKernel(GRAD_GATE, { gate: sg, up: su, dy }), runKernel(GRAD_UP, { gate: sg, dy })],
    };
  });
  return op(gate, up);
}
